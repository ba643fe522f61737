/**
 * The flags `compare` shares with `contract`, each shown against a real
 * target over HTTP: `--budget` caps what is asked of the target, `--accounts`
 * is the only source of recipients, `--other-token` adds the second
 * customer's view (and catches a target that shows it the order), and
 * `--request-timeout` ends a comparison with a target that never answers.
 */
import { createServer, type Server } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { COMPARE_SAFETY_FLAGS } from "../../src/cli/compare-settings.ts";
import { CONTRACT_FLAGS } from "../../src/cli/contract.ts";
import { ISOLATION_RULE } from "../../src/compare/safety.ts";
import type { CompareJsonReport } from "../../src/compare/report-schema.ts";
import { useTempFolder } from "../support/temp-folder.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const OTHER_TOKEN = "compare-target-other-token";
const targets = new CompareTargets();
const hanging: Server[] = [];
afterEach(async () => {
  await targets.close();
  for (const server of hanging.splice(0)) server.closeAllConnections();
  await Promise.all(hanging.map((server) => new Promise((resolve) => server.close(resolve))));
});
const folder = useTempFolder("compare-safety-");
beforeAll(async () => {
  await writeFile(join(folder(), "reference.json"), JSON.stringify(REFERENCE_SETTINGS));
});

interface Ran {
  readonly code: number;
  readonly report: CompareJsonReport | undefined;
  readonly errors: string;
}

async function compare(target: string, extra: readonly string[]): Promise<Ran> {
  const file = join(folder(), `report-${Math.random().toString(36).slice(2)}.json`);
  const args = ["--target", target, "--token", TARGET_TOKEN, "--seed", "9", "--settle", "10s"];
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    const code = await main([
      "compare",
      ...args,
      "--sim-config",
      join(folder(), "reference.json"),
      "--json",
      file,
      ...extra,
    ]);
    const report = await readFile(file, "utf8").then(
      (text) => JSON.parse(text) as CompareJsonReport,
      () => undefined,
    );
    return { code, report, errors: error.mock.calls.flat().join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** A target that records every order request's body on its way to a simulator. */
async function recordingTarget(orders: { account: string; amount: number }[]): Promise<string> {
  return targets.rewritingProxy(await targets.simulator({ seed: 41 }), (answer) => {
    if (answer.method === "POST" && answer.path === "/v1/airtime") {
      orders.push(JSON.parse(answer.requestBody) as { account: string; amount: number });
    }
    return { status: answer.status, body: answer.body };
  });
}

test("the shared flags are contract's own definitions, not copies", () => {
  const contractFlags = CONTRACT_FLAGS.flatMap((section) => section.flags);
  expect(COMPARE_SAFETY_FLAGS.map((flag) => flag.name)).toEqual(
    expect.arrayContaining(["budget", "accounts", "other-token", "request-timeout"]),
  );
  for (const flag of COMPARE_SAFETY_FLAGS) expect(contractFlags).toContain(flag);
});

test("--budget caps what the target is asked for, and keeps the plan the same on both sides", async () => {
  const orders: { account: string; amount: number }[] = [];
  const { code, report } = await compare(await recordingTarget(orders), ["--runs", "20", "--budget", "20000"]);
  expect(code).toBe(0);
  const asked = orders.reduce((sum, order) => sum + Math.max(0, order.amount), 0);
  expect(asked).toBeGreaterThan(0);
  expect(asked).toBeLessThanOrEqual(20000);
  expect(report?.spending).toMatchObject({ budget: 20000, runsPlanned: 20 });
  expect(report?.spending?.maxSpend).toBeLessThanOrEqual(20000);
  expect(report?.spending?.maxSpend).toBeGreaterThanOrEqual(asked);
  expect(report?.runs).toBeGreaterThanOrEqual(1);
  expect(report?.runs).toBeLessThan(20);
  expect(report?.divergences).toBe(0);
  expect(report?.sides.simulator.steps).toBe(report?.sides.target.steps);
});

test("--budget too small for one run exits 2 before anything is sent", async () => {
  const orders: { account: string; amount: number }[] = [];
  const { code, errors } = await compare(await recordingTarget(orders), ["--budget", "5"]);
  expect(code).toBe(2);
  expect(errors).toContain("--budget KES 5 does not cover one run");
  expect(orders).toEqual([]);
});

test("--accounts is the only source of recipients", async () => {
  const accounts = join(folder(), "accounts.txt");
  await writeFile(accounts, "# ours\n0733000202\n0770000303\n");
  const orders: { account: string; amount: number }[] = [];
  const { code, report } = await compare(await recordingTarget(orders), ["--runs", "4", "--accounts", accounts]);
  expect(code).toBe(0);
  expect(report?.divergences).toBe(0);
  expect(new Set(orders.map((order) => order.account))).toEqual(new Set(["0733000202", "0770000303"]));
});

describe("--other-token", () => {
  const withOther = () =>
    targets.simulator({ seed: 43, customers: [{ id: "second", token: OTHER_TOKEN, balance: 1000 }] });

  test("compares what a second customer is told about the first one's order", async () => {
    const { code, report } = await compare(await withOther(), ["--runs", "2", "--other-token", OTHER_TOKEN]);
    expect(code).toBe(0);
    const rule = report?.rules.find((result) => result.rule === ISOLATION_RULE);
    expect(rule).toMatchObject({ agrees: true, operation: "lookup", observations: 1 });
    expect(rule?.target).toMatchObject({ kind: "answers", answers: { "not found not_found": 1 } });
  });

  test("a target that shows the order to the other customer diverges under that rule alone", async () => {
    // The planted fault: the proxy swaps the other customer's token for the first one's, so the order is found.
    const upstream = await withOther();
    const leaky = createServer(async (request, response) => {
      const authorization = request.headers.authorization?.replace(OTHER_TOKEN, TARGET_TOKEN);
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const answer = await fetch(`${upstream}${request.url}`, {
        method: request.method ?? "GET",
        headers: {
          ...(authorization === undefined ? {} : { authorization }),
          ...(request.headers["idempotency-key"] === undefined
            ? {}
            : { "idempotency-key": String(request.headers["idempotency-key"]) }),
          "content-type": "application/json",
        },
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      });
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(await answer.text());
    });
    hanging.push(leaky);
    await new Promise<void>((resolve) => leaky.listen(0, "127.0.0.1", resolve));
    const port = (leaky.address() as { port: number }).port;
    const { report } = await compare(`http://127.0.0.1:${port}`, ["--runs", "2", "--other-token", OTHER_TOKEN]);
    const divergent = report?.rules.filter((result) => !result.agrees).map((result) => result.rule);
    expect(divergent).toEqual([ISOLATION_RULE]);
    const rule = report?.rules.find((result) => result.rule === ISOLATION_RULE);
    expect(rule?.target).toMatchObject({ answers: { found: 1 } });
  });
});

test("--request-timeout ends a comparison with a target that never answers (exit 2)", async () => {
  const silent = createServer(() => undefined);
  hanging.push(silent);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as { port: number }).port;
  const { code, errors } = await compare(`http://127.0.0.1:${port}`, ["--runs", "1", "--request-timeout", "300ms"]);
  expect(code).toBe(2);
  expect(errors).toMatch(/cannot compare with .*timeout/i);
});

test.each([
  [["--budget=-5"], "--budget must be an amount ≥ 0 (KES)"],
  [["--request-timeout", "soon"], "--request-timeout"],
  [["--accounts", "/nonexistent/accounts.txt"], "--accounts: cannot read"],
])("%j is a usage error, told against the flag", async (extra, message) => {
  const { code, errors } = await compare("http://127.0.0.1:9", extra);
  expect(code).toBe(2);
  expect(errors).toContain(message);
});
