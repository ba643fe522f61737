/**
 * An evicted order: `serve --max-orders 2` keeps only the two newest orders
 * and answers the lookup of an older one with 410 `order_evicted`, a status
 * spec/openapi.yaml documents. The contract run passes, and an order once
 * answered 410 is not polled again (counted by a proxy in front of serve).
 */
import { randomBytes } from "node:crypto";
import { afterAll, expect, test } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { startServe } from "../support/processes.ts";
import { type RewritingProxy, startRewritingProxy } from "./rewriting-proxy.ts";

const MAX_COMMANDS = 12;
const children: RunningProcess[] = [];
const proxies: RewritingProxy[] = [];

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const child of children) await child.stop();
});

test("contract against serve --max-orders 2 passes over five seeds, and an order answered 410 is not polled again", async () => {
  const token = `evicted-${randomBytes(8).toString("hex")}`;
  const args = ["--timing", "200ms", "--demo-token", token, "--demo-balance", "100000", "--max-orders", "2"];
  const { server, url } = await startServe(args);
  children.push(server);
  const gone = new Map<string, number>();
  const proxy = await startRewritingProxy(url, async (req, forward) => {
    const res = await forward();
    if (req.method === "GET" && res.status === 410) gone.set(req.path, (gone.get(req.path) ?? 0) + 1);
    return res;
  });
  proxies.push(proxy);
  for (const seed of [1, 2, 3, 4, 5]) {
    const report = await runContract({
      target: proxy.url,
      token,
      properties: ["model"],
      runs: 5,
      seed,
      maxCommands: MAX_COMMANDS,
      finalTimeoutMs: 5000,
    });
    const failed = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
    expect(failed, `seed ${seed}`).toEqual([]);
    expect(report.errors, `seed ${seed}`).toEqual([]);
  }
  expect(gone.size).toBeGreaterThan(0);
  // A lookup command may meet a gone order now and then; settling and the audit never poll it.
  for (const [path, answers] of gone) expect(answers, path).toBeLessThanOrEqual(MAX_COMMANDS);
}, 240_000);
