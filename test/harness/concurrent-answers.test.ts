/**
 * Identical requests sent at once are served in an order the client cannot
 * see: an answer judged later may carry an earlier status than one judged
 * before it, when its request left before that status was observed. The
 * target here is correct, and shows the race on purpose: of identical
 * requests in flight together, the first to arrive commits the order at
 * once but is answered only after the order went final (with the status as
 * it is then), while the others are answered at once, pending. Judged in
 * request order, a pending answer follows the final one; the harness must
 * judge each answer against what it had observed when the request left, so
 * the run passes, under both profiles.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runContract } from "../../src/harness/run-contract.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { type ProxiedRequest, type RewritingProxy, startRewritingProxy } from "./rewriting-proxy.ts";

const FINAL_MS = 300;
/** How long the first request waits for identical ones to join it before it is answered. */
const GATHER_MS = 50;
const token = `concurrent-${randomBytes(6).toString("hex")}`;
let sim: Simulator;
let proxy: RewritingProxy;
/** Answers to a first request that other identical requests overtook with an earlier status. */
let overtaken = 0;

/** Identical requests carrying a key (a keyless copy is a new order, never a replay). */
function groupOf(req: ProxiedRequest): string | undefined {
  if (req.method !== "POST" || req.path !== "/v1/airtime") return undefined;
  const key = req.headers["idempotency-key"] ?? (JSON.parse(req.body) as { idempotencyKey?: string }).idempotencyKey;
  return key === undefined ? undefined : `${key} ${req.body}`;
}

beforeAll(async () => {
  sim = await createSimulator({
    clock: "real",
    seed: 1,
    timing: { kind: "fixed", ms: FINAL_MS },
    demo: false,
    customers: [{ id: "concurrent", token, balance: 10_000_000 }],
  });
  const inFlight = new Map<string, number>();
  const joined = new Set<string>();
  proxy = await startRewritingProxy(await sim.listen(0, "127.0.0.1"), async (req, forward) => {
    const group = groupOf(req);
    if (group === undefined) return forward();
    const ahead = inFlight.get(group) ?? 0;
    inFlight.set(group, ahead + 1);
    try {
      const answer = await forward();
      if (ahead > 0) {
        joined.add(group);
        return answer;
      }
      await sleep(GATHER_MS);
      if (!joined.has(group)) return answer;
      // Overtaken: answered once the order is final, with its status then, as the first answer it is.
      await sleep(FINAL_MS + 200);
      const late = await forward();
      overtaken++;
      const { "idempotent-replayed": _replayed, ...headers } = late.headers;
      return { ...late, headers };
    } finally {
      inFlight.set(group, (inFlight.get(group) ?? 1) - 1);
      if (ahead === 0) joined.delete(group);
    }
  });
});

afterAll(async () => {
  await proxy.close();
  await sim.close();
});

test.each(["strict", "interface"] as const)(
  "answers to identical requests served out of order pass under --profile %s",
  async (profile) => {
    const before = overtaken;
    const report = await runContract({
      target: proxy.url,
      token,
      profile,
      properties: ["model"],
      runs: 12,
      seed: 7,
      finalTimeoutMs: 5000,
      lateAuditMs: 0,
    });
    const failed = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
    expect(failed).toEqual([]);
    expect(report.errors).toEqual([]);
    // The race was shown: some answer with a final status was judged before a pending one.
    expect(overtaken - before).toBeGreaterThan(0);
  },
  120_000,
);
