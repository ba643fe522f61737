/**
 * The bench's wrk script and arguments: built as wrk expects them, and — when
 * wrk is installed (always in CI) — run against a small server to show that
 * every POST is a new order (a fresh idempotency key and reference) and that
 * the result line parses.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { BENCH_TOKEN, parseWrkOutput, wrkArgs, wrkScript } from "../../bench/requests.ts";

const run = promisify(execFile);

async function wrkInstalled(): Promise<boolean> {
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 1; // `wrk --version` exits 1 after printing its version
  }
}

const HAS_WRK = await wrkInstalled();
if (!HAS_WRK && process.env.CI === "true") throw new Error("wrk is not installed; .ci/run installs it with apt-get");

test("wrk's arguments: one thread, the connections, the duration, the script, the URL", () => {
  expect(
    wrkArgs({ url: "http://127.0.0.1:1", scriptPath: "/tmp/s.lua", durationS: 4, connections: 32, threads: 1 }),
  ).toEqual(["-t1", "-c32", "-d4s", "--timeout", "5s", "-s", "/tmp/s.lua", "http://127.0.0.1:1"]);
});

test("the GET scripts send the bearer token to a fixed path; only the POST script builds requests", () => {
  const balance = wrkScript("balance", "p");
  expect(balance).toContain('wrk.path = "/v1/balance"');
  expect(balance).toContain(`Bearer ${BENCH_TOKEN}`);
  expect(balance).not.toContain("request = function");
  expect(wrkScript("post", "p")).toContain("request = function");
});

test("the result line parses into req/s and milliseconds", () => {
  const result = parseWrkOutput(
    'Running 4s test\nWRK_RESULT {"requests":4000,"durationUs":2000000,"p50Us":1500,"p99Us":4200,"problems":3}\n',
  );
  expect(result).toEqual({ requests: 4000, rps: 2000, p50Ms: 1.5, p99Ms: 4.2, problems: 3 });
  expect(() => parseWrkOutput("no result here")).toThrow(/no result/);
});

test.skipIf(!HAS_WRK)("under wrk, every POST carries a new key and reference, with the token", async () => {
  const keys = new Set<string>();
  let requests = 0;
  let wellFormed = 0;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      requests++;
      const key = req.headers["idempotency-key"];
      const body = JSON.parse(text) as { reference?: string };
      if (
        req.method === "POST" &&
        req.url === "/v1/airtime" &&
        req.headers.authorization === `Bearer ${BENCH_TOKEN}` &&
        body.reference === key
      ) {
        wellFormed++;
      }
      if (typeof key === "string") keys.add(key);
      res.setHeader("content-type", "application/json");
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const dir = mkdtempSync(join(tmpdir(), "wrk-test-"));
    const scriptPath = join(dir, "post.lua");
    writeFileSync(scriptPath, wrkScript("post", "smoke"));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { stdout } = await run("wrk", wrkArgs({ url, scriptPath, durationS: 1, connections: 4, threads: 2 }));
    const result = parseWrkOutput(stdout);
    expect(result.requests).toBeGreaterThan(0);
    expect(result.problems).toBe(0);
    // wrk counts completed responses; the server may have answered a few more as the run stopped.
    expect(requests).toBeGreaterThanOrEqual(result.requests);
    expect(wellFormed).toBe(requests);
    expect(keys.size).toBe(requests);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
