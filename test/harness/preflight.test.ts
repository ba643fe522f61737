/**
 * The preflight: before any property, an unreachable target or a refused
 * token stops `contract` with exit 2 and the cause on the first line of
 * stderr, naming the flag whose token was refused; nothing is printed to
 * stdout (no table of skipped checks hiding the cause).
 */
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { contract } from "../../src/cli/contract.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const TOKEN = "preflight-good-token";
let sim: Simulator;
let url: string;

beforeAll(async () => {
  sim = await createSimulator({ clock: "real", timing: "50ms", seed: 3, demo: { token: TOKEN, balance: 5_000 } });
  url = await sim.listen(0, "127.0.0.1");
});

afterAll(async () => {
  await sim.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A port that was just free: nothing listens on it, so a connection is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function runCli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const stderr: string[] = [];
  const stdout: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => void stderr.push(parts.join(" ")));
  vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => void stdout.push(parts.join(" ")));
  const code = await contract([...args, "--quiet", "--runs", "1"]);
  return { code, stderr: stderr.join("\n"), stdout: stdout.join("\n") };
}

test("an unreachable target exits 2 with the cause on the first line", async () => {
  const target = `http://127.0.0.1:${await closedPort()}`;
  const { code, stderr, stdout } = await runCli(["--target", target, "--token", TOKEN]);
  expect(code).toBe(2);
  expect(stderr.split("\n")[0]).toBe(
    `airtime-harness contract: cannot reach ${target}: connection refused (ECONNREFUSED)`,
  );
  expect(stdout).toBe("");
});

test("a refused --token exits 2 naming --token", async () => {
  const { code, stderr, stdout } = await runCli(["--target", url, "--token", "not-a-customer-token"]);
  expect(code).toBe(2);
  expect(stderr.split("\n")[0]).toMatch(
    /^airtime-harness contract: --token was refused by .*: 401 on GET \/v1\/balance/,
  );
  expect(stderr).not.toContain("not-a-customer-token");
  expect(stdout).toBe("");
});

test("a refused --other-token exits 2 naming --other-token, not --token", async () => {
  const { code, stderr } = await runCli(["--target", url, "--token", TOKEN, "--other-token", "nobody-has-this"]);
  expect(code).toBe(2);
  expect(stderr.split("\n")[0]).toMatch(/^airtime-harness contract: --other-token was refused by /);
});

test("a webhook listen address in use exits 2 naming the address and --webhook-listen", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  try {
    const address = taken.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const listen = `127.0.0.1:${address.port}`;
    const secret = `whsec_${Buffer.from("preflight webhook secret 32 byte").toString("base64")}`;
    const { code, stderr, stdout } = await runCli(["--webhook-listen", listen, "--webhook-secret", secret]);
    expect(code).toBe(2);
    const first = stderr.split("\n")[0];
    expect(first).toContain(`the webhook listen address ${listen} is in use`);
    expect(first).toContain("--webhook-listen");
    expect(stdout).toBe("");
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});
