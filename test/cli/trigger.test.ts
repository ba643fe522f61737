/**
 * `airtime-harness trigger`, run as users run it (a child process), aimed at
 * a real express handler that verifies with the `standardwebhooks` package:
 * one command with an in-process simulator, and against a running `serve`.
 */
import { readFile } from "node:fs/promises";
import { afterEach, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { trigger } from "../../src/cli/trigger.ts";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import { finalStatusCodes } from "../../src/contract/status-names.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { freePort, runCli, startServe } from "../support/processes.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const ADMIN_TOKEN = "trigger-admin-token";
const DEMO_TOKEN = "trigger-demo-token";
const handlers: WebhookHandler[] = [];
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const handler of handlers.splice(0)) await handler.close();
  vi.restoreAllMocks();
});

async function handler(secret: string, answer?: (n: number) => number): Promise<WebhookHandler> {
  const started = await startWebhookHandler(secret, answer);
  handlers.push(started);
  return started;
}

/** `airtime-harness trigger <args>` to its end: exit code and everything it printed. */
async function runTrigger(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const child = runCli(["trigger", ...args]);
  stops.push(() => child.stop());
  const code = await child.exited;
  return { code, output: child.output() };
}

interface TriggerJson {
  readonly ok: boolean;
  readonly order: Record<string, unknown>;
  readonly deliveries: Array<{
    messageId: string;
    kind: string;
    status: number;
    state: string;
    attempts: Array<{ responseStatus: number | null }>;
  }>;
}

function jsonOf(output: string): TriggerJson {
  return JSON.parse(output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1)) as TriggerJson;
}

/** The flags of one-command mode, aimed at `receiver`. */
function oneCommand(receiver: WebhookHandler, secret: string): string[] {
  return ["--forward-to", receiver.url, "--secret", secret];
}

/** What the command prints to `stream` while it runs in this process. */
function captured(stream: "log" | "error"): string[] {
  const lines: string[] = [];
  vi.spyOn(console, stream).mockImplementation((text: string) => {
    lines.push(text);
  });
  return lines;
}

const SHARED_FIELDS = ["id", "reference", "status", "message", "service", "account", "amount", "currency", "shortcode"];

function pick(record: Record<string, unknown> | undefined, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, record?.[field]]));
}

it("trigger failed --forward-to: the express handler receives and verifies a Failed webhook that agrees with the lookup", async () => {
  const secret = generateWebhookSecret();
  const receiver = await handler(secret);
  const { code, output } = await runTrigger(["failed", ...oneCommand(receiver, secret), "--json"]);
  expect(code, output).toBe(0);
  const report = jsonOf(output);
  expect(receiver.requests).toHaveLength(1);
  const [request] = receiver.requests;
  expect(request?.verified).toBe(true);
  expect(request?.event).toMatchObject({ status: 2, message: "Failed", final: true });
  expect(pick(request?.event, SHARED_FIELDS)).toEqual(pick(report.order, SHARED_FIELDS));
  expect(report.deliveries.map((delivery) => delivery.attempts.map((a) => a.responseStatus))).toEqual([[204]]);
});

it("trigger against a running serve: the webhook reaches the handler and agrees with the simulator's lookup", async () => {
  const secret = generateWebhookSecret();
  const receiver = await handler(secret);
  const { server, url } = await startServe([
    "--admin-token",
    ADMIN_TOKEN,
    "--demo-token",
    DEMO_TOKEN,
    "--webhook-url",
    receiver.url,
    "--webhook-secret",
    secret,
  ]);
  stops.push(() => server.stop());
  const reference = "TRIGGER-REMOTE-1";
  const run = await runTrigger(["failed", "--url", url, "--admin-token", ADMIN_TOKEN, "--reference", reference]);
  expect(run.code, run.output).toBe(0);
  expect(run.output).toContain(`(reference ${reference}): 2 Failed`);
  expect(run.output).toMatch(/attempt 1: HTTP 204 in \d+ ms \(delivered\)/);
  const lookup = await fetch(`${url}/v1/airtime/${reference}`, { headers: { authorization: `Bearer ${DEMO_TOKEN}` } });
  const order = (await lookup.json()) as Record<string, unknown>;
  expect(receiver.requests.map((r) => r.verified)).toEqual([true]);
  expect(pick(receiver.requests[0]?.event, SHARED_FIELDS)).toEqual(pick(order, SHARED_FIELDS));
  expect(order.status).toBe(2);
  // The scenario it loaded to hold the order is gone again; a second run leaves nothing either.
  const again = await runTrigger(["success", "--url", url, "--admin-token", ADMIN_TOKEN, "--duplicate", "1"]);
  expect(again.code, again.output).toBe(0);
  const scenarios = await fetch(`${url}/_sim/scenarios`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const listing = (await scenarios.json()) as { loaded: Array<{ name: string }>; active: { global: string[] } };
  expect(listing.loaded.map((scenario) => scenario.name).filter((name) => name.startsWith("trigger-"))).toEqual([]);
  expect(listing.active.global).toEqual([]);
});

it("works for every final status in the status table", async () => {
  const secret = generateWebhookSecret();
  const receiver = await handler(secret);
  const printed = captured("log");
  const codes = finalStatusCodes(DEFAULT_STATUS_TABLE);
  expect(codes.length).toBeGreaterThan(10);
  for (const code of codes) {
    const before = receiver.requests.length;
    expect(await trigger([String(code), ...oneCommand(receiver, secret), "--json"])).toBe(0);
    const last = receiver.requests.at(-1);
    expect(last?.verified).toBe(true);
    expect(last?.event?.status, `status ${code}`).toBe(code);
    // A reversal comes after the success it reverses.
    expect(receiver.requests.length - before).toBe(code === 8 ? 2 : 1);
    expect(jsonOf(printed.at(-1) ?? "").order.status).toBe(code);
  }
});

it("--duplicate N counts as the webhook-storm scenario's duplicate: N does: N extra copies, one webhook-id", async () => {
  const storm = parseYaml(await readFile(new URL("../../scenarios/webhook-storm.yaml", import.meta.url), "utf8")) as {
    description: string;
    rules: Array<{ effects: { webhook: { duplicate: number } } }>;
  };
  const n = storm.rules[0]?.effects.webhook.duplicate ?? 0;
  expect(n).toBe(3);
  expect(storm.description).toContain(`${n} duplicates (${n + 1} deliveries`);
  const secret = generateWebhookSecret();
  const receiver = await handler(secret);
  const { code, output } = await runTrigger([
    "success",
    "--duplicate",
    String(n),
    ...oneCommand(receiver, secret),
    "--json",
  ]);
  expect(code, output).toBe(0);
  expect(receiver.requests).toHaveLength(n + 1);
  expect(receiver.requests.every((request) => request.verified)).toBe(true);
  expect(new Set(receiver.requests.map((request) => request.webhookId)).size).toBe(1);
  expect(jsonOf(output).deliveries.map((delivery) => delivery.kind)).toEqual([
    "status",
    ...Array.from({ length: n }, () => "duplicate"),
  ]);
});

it("--bad-signature is rejected by the handler, and trigger exits 1", async () => {
  const secret = generateWebhookSecret();
  const receiver = await handler(secret);
  const { code, output } = await runTrigger(["timeout", "--bad-signature", ...oneCommand(receiver, secret)]);
  expect(code, output).toBe(1);
  expect(receiver.requests.length).toBeGreaterThan(0);
  expect(receiver.requests.every((request) => !request.verified && request.answered === 400)).toBe(true);
  expect(output).toContain("[signed with a wrong secret]");
  expect(output).toMatch(/attempts 1–10: HTTP 400, 10 times \(failed\)/);
  // Refused on purpose: no hint about the secrets.
  expect(output).not.toContain("probably differs");
  expect(output).toContain("not ok: the handler did not answer 2xx to every webhook");
});

it("a handler that verifies with another secret gets a hint that the secrets probably differ", async () => {
  const receiver = await handler(generateWebhookSecret());
  const { code, output } = await runTrigger(["success", ...oneCommand(receiver, generateWebhookSecret())]);
  expect(code, output).toBe(1);
  expect(output).toMatch(/attempts 1–10: HTTP 400, 10 times \(failed\)/);
  expect(output).toContain("hint: the handler refused correctly signed webhooks (HTTP 400)");
  expect(output).toContain("the secret it verifies with probably differs");
});

it("an unknown status exits 2 and lists the valid ones", async () => {
  const { code, output } = await runTrigger(["exploded"]);
  expect(code).toBe(2);
  expect(output).toContain("unknown status 'exploded'");
  expect(output).toMatch(/valid statuses: success \(20\), cancelled \(1\), failed \(2\).*reversed \(8\)/);
});

it("an unreachable simulator exits 2 with one clear line", async () => {
  const port = await freePort();
  const { code, output } = await runTrigger([
    "failed",
    "--url",
    `http://127.0.0.1:${port}`,
    "--admin-token",
    ADMIN_TOKEN,
  ]);
  expect(code).toBe(2);
  expect(output.trim()).toBe(
    `airtime-harness trigger: cannot reach the simulator at http://127.0.0.1:${port} (ECONNREFUSED)`,
  );
});

it("a wrong admin token exits 2 with one clear line, and places no order", async () => {
  const { server, url } = await startServe(["--admin-token", ADMIN_TOKEN, "--demo-token", DEMO_TOKEN]);
  stops.push(() => server.stop());
  const { code, output } = await runTrigger(["failed", "--url", url, "--admin-token", "not-the-admin-token"]);
  expect(code).toBe(2);
  expect(output.trim()).toMatch(/^airtime-harness trigger: the simulator at \S+ refused the admin token \(HTTP 401\)/);
  expect(output.trim().split("\n")).toHaveLength(1);
  const orders = await fetch(`${url}/_sim/orders`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(((await orders.json()) as { orders: unknown[] }).orders).toEqual([]);
});

it("refuses a forward URL with credentials or a scheme other than http(s)", async () => {
  const secret = generateWebhookSecret();
  const errors = captured("error");
  for (const url of ["http://user:pass@127.0.0.1:3000/webhooks", "ftp://127.0.0.1/webhooks", "file:///etc/passwd"]) {
    expect(await trigger(["failed", "--forward-to", url, "--secret", secret])).toBe(2);
  }
  expect(errors.join("\n")).toContain("must not carry credentials");
  expect(errors.join("\n")).toContain("'ftp' URLs are refused");
  expect(errors.join("\n")).toContain("'file' URLs are refused");
});

it("refuses other bad input with exit 2", async () => {
  const errors = captured("error");
  const secret = generateWebhookSecret();
  const forward = ["--forward-to", "localhost:9/webhooks", "--secret", secret];
  expect(await trigger([])).toBe(2);
  expect(await trigger(["error", ...forward])).toBe(2);
  expect(await trigger(["3", ...forward])).toBe(2);
  expect(await trigger(["failed", "--forward-to", "localhost:9/webhooks"])).toBe(2);
  expect(await trigger(["failed", ...forward, "--url", "http://127.0.0.1:4010"])).toBe(2);
  expect(await trigger(["failed", ...forward, "--duplicate", "11"])).toBe(2);
  expect(await trigger(["failed", ...forward, "--delay", "soon"])).toBe(2);
  const text = errors.join("\n");
  expect(text).toContain("'error' names several statuses (13, 15, 16, 24): give the code");
  expect(text).toContain("3 (Submitted) is not a final status");
  expect(text).toContain("--forward-to needs the handler's secret");
  expect(text).toContain("--forward-to starts its own simulator; --url is for a running one");
  expect(text).toContain("--duplicate must be a whole number from 0 to 10 (extra copies)");
  expect(text).toContain('--delay: "soon" is not a duration');
});
