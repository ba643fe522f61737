/**
 * `airtime-harness listen` as a real child process: prints verified
 * deliveries on stdout, rejected ones on stderr, stops cleanly on SIGTERM.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it, vi } from "vitest";
import { listen } from "../../src/cli/listen.ts";
import type { WebhookPayload } from "../../src/contract/webhook-schemas.ts";
import { generateWebhookSecret, signWebhook } from "../../src/webhooks/signing.ts";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  vi.restoreAllMocks();
});

interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

async function start(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "listen", ...args], { env: { ...process.env } });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await waitFor(
    () => /listening on (\S+)/.exec(out)?.[1],
    () => `no URL in: ${out}${err}`,
  );
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

async function waitFor<T>(probe: () => T | undefined, describe: () => string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(describe());
    // Polling a child's output: there is no clock to advance here.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const payload = (reference: string): WebhookPayload => ({
  type: "airtime.status",
  id: "ord_1",
  reference,
  status: 20,
  message: "Success",
  final: true,
  service: "airtel",
  account: "+254733123456",
  amount: 50,
  balance: 950,
  currency: "KES",
  shortcode: null,
  timestamp: new Date(0).toISOString(),
});

function send(url: string, id: string, body: string, secret: string): Promise<Response> {
  const headers = signWebhook({ id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

it("prints one line per verified delivery and rejected ones on stderr, then stops on SIGTERM", async () => {
  const secret = generateWebhookSecret();
  const running = await start(["--port", "0", "--secret", secret]);
  expect((await send(running.url, "msg_cli1", JSON.stringify(payload("CLI-1")), secret)).status).toBe(200);
  expect((await send(running.url, "msg_cli1", JSON.stringify(payload("CLI-1")), secret)).status).toBe(200);
  expect((await send(running.url, "msg_cli2", JSON.stringify(payload("CLI-2")), generateWebhookSecret())).status).toBe(
    400,
  );
  const line = await waitFor(
    () =>
      running
        .stdout()
        .split("\n")
        .find((l) => l.includes("CLI-1")),
    () => running.stdout(),
  );
  expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z {2}msg_cli1 {2}CLI-1 {2}20 {2}Success$/);
  await waitFor(
    () => (running.stderr().includes("rejected msg_cli2: No matching signature found") ? true : undefined),
    () => running.stderr(),
  );
  expect(running.stdout()).not.toContain("CLI-2");
  running.child.kill("SIGTERM");
  expect(await running.exited).toBe(0);
  expect(running.stderr()).toContain("stopped after 1 delivery, 1 duplicate, 1 rejected");
});

it("answers with --status, so a sender sees its chosen failure", async () => {
  const secret = generateWebhookSecret();
  const running = await start(["--port", "0", "--secret", secret, "--status", "503", "--json"]);
  expect((await send(running.url, "msg_s", JSON.stringify(payload("CLI-3")), secret)).status).toBe(503);
  expect((await send(running.url, "msg_s2", "{}", secret)).status).toBe(503);
  running.child.kill("SIGTERM");
  expect(await running.exited).toBe(0);
  // Not accepted (503), so not printed as a delivery.
  expect(running.stdout()).not.toContain("CLI-3");
});

it("refuses bad flags with exit 2 and a message", async () => {
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((message: string) => {
    errors.push(message);
  });
  expect(await listen([])).toBe(2);
  expect(await listen(["--secret", "nope"])).toBe(2);
  expect(await listen(["--secret", generateWebhookSecret(), "--status", "99"])).toBe(2);
  expect(await listen(["--secret", generateWebhookSecret(), "--port", "70000"])).toBe(2);
  expect(await listen(["--bogus"])).toBe(2);
  expect(errors.join("\n")).toMatch(/--secret whsec_/);
  expect(errors.join("\n")).toMatch(/--status must be/);
  expect(errors.join("\n")).toMatch(/--port must be/);
  expect(errors.join("\n")).toMatch(/unknown option --bogus/);
});
