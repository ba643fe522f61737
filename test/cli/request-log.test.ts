/**
 * `serve`'s request log, from the command as users run it: one line per
 * request, a replay logged as a replay, and no token in any log line or
 * journal entry — not even one a client put in the query string.
 */
import { afterEach, expect, test } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { startServe } from "../support/processes.ts";

const DEMO_TOKEN = "demo-token-log-7f3a91";
const ADMIN_TOKEN = "admin-token-log-c2e844";
const QUERY_TOKEN = "query-token-9d1b5e77";

let server: RunningProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function placeTwiceThenMismatch(url: string): Promise<void> {
  const order = (amount: number) =>
    fetch(`${url}/v1/airtime`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${DEMO_TOKEN}`,
        "content-type": "application/json",
        "idempotency-key": "log-key-1",
      },
      body: JSON.stringify({ account: "0712345678", amount, currency: "KES", reference: "log-order-1" }),
    });
  for (const amount of [100, 100, 250]) await (await order(amount)).text();
  await (await fetch(`${url}/v1/balance?access_token=${QUERY_TOKEN}&page=1`)).text();
}

/** The request lines printed so far, once `count` of them are there. */
async function requestLines(process: RunningProcess, pattern: RegExp, count: number): Promise<string[]> {
  const lines = () =>
    process
      .output()
      .split("\n")
      .filter((line) => pattern.test(line));
  for (let waited = 0; lines().length < count && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return lines();
}

function serveArgs(...more: string[]): string[] {
  return ["--demo-token", DEMO_TOKEN, "--admin-token", ADMIN_TOKEN, ...more];
}

test("--log-format json: a JSON line per request, a replay as a replay, and no token anywhere", async () => {
  const started = await startServe(serveArgs("--log-format", "json"));
  server = started.server;
  await placeTwiceThenMismatch(started.url);
  const journal = await (
    await fetch(`${started.url}/_sim/journal`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).text();

  const lines = await requestLines(server, /^\{/, 5);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const orders = entries.filter((entry) => entry.path === "/v1/airtime");
  expect(orders.map((entry) => [entry.status, entry.idempotency, entry.customer])).toEqual([
    [200, "new", "demo"],
    [200, "replayed", "demo"],
    [409, "mismatch", "demo"],
  ]);
  expect(orders[0]).toMatchObject({ level: 30, method: "POST", msg: "POST /v1/airtime 200" });
  expect(orders[0]?.durationMs).toEqual(expect.any(Number));
  expect(orders[2]?.level).toBe(40);
  expect(entries.map((entry) => entry.path)).toContain("/v1/balance?access_token=REDACTED&page=1");

  for (const secret of [DEMO_TOKEN, ADMIN_TOKEN, QUERY_TOKEN]) {
    for (const line of lines) expect(line).not.toContain(secret);
    expect(journal).not.toContain(secret);
  }
  expect(journal).toContain("access_token=REDACTED");
});

test("the readable format: one line per request naming status, customer and the replay", async () => {
  const started = await startServe(serveArgs());
  server = started.server;
  await placeTwiceThenMismatch(started.url);
  const lines = await requestLines(server, /^\d\d:\d\d:\d\d\.\d{3} {2}/, 4);
  expect(lines[1]).toMatch(/^\S+ {2}POST \/v1\/airtime {2}200 {2}[\d.]+ms {2}demo {2}replayed$/);
  expect(lines[2]).toMatch(/ {2}409 {2}.* {2}mismatch$/);
  // Not a TTY: no colour codes.
  for (const line of lines) expect(line).not.toContain("\u001b[");
  for (const line of lines) for (const secret of [DEMO_TOKEN, QUERY_TOKEN]) expect(line).not.toContain(secret);
});

test("--quiet: no request lines", async () => {
  const started = await startServe(serveArgs("--quiet"));
  server = started.server;
  await placeTwiceThenMismatch(started.url);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(server.output()).not.toMatch(/POST \/v1\/airtime/);
});

test("--log-level warn: only the 4xx and 5xx lines", async () => {
  const started = await startServe(serveArgs("--log-level", "warn"));
  server = started.server;
  await placeTwiceThenMismatch(started.url);
  await requestLines(server, /^\d\d:\d\d:\d\d\.\d{3} {2}/, 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lines = await requestLines(server, /^\d\d:\d\d:\d\d\.\d{3} {2}/, 2);
  expect(lines.map((line) => line.split("  ")[2])).toEqual(["409", "401"]);
});
