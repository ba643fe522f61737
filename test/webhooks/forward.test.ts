/**
 * `airtime-harness listen --forward-to`, between a running `serve` and a real
 * express handler: every attempt passes through unchanged, the handler's
 * status is what the simulator gets, so its delivery log follows the handler.
 */
import { afterEach, expect, it, vi } from "vitest";
import { listen } from "../../src/cli/listen.ts";
import { createAdminClient } from "../../src/harness/admin-client.ts";
import type { AdminDeliveryDetail } from "../../src/webhooks/admin-schemas.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { freePort, runCli, startServe } from "../support/processes.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const ADMIN_TOKEN = "forward-admin-token";
const DEMO_TOKEN = "forward-demo-token";
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  vi.restoreAllMocks();
});

interface Chain {
  readonly url: string;
  readonly listenOutput: () => string;
}

/** handler ← listen --forward-to ← serve (demo customer's webhook, quick retries). */
async function startChain(secret: string, target: string): Promise<Chain> {
  const listener = runCli(["listen", "--port", "0", "--secret", secret, "--forward-to", target]);
  stops.push(() => listener.stop());
  const ready = await listener.waitFor(/listening on (http:\/\/\S+?),/, 30_000);
  if (ready.kind !== "matched") throw new Error(`listen did not start: ${listener.output()}`);
  const { server, url } = await startServe([
    "--admin-token",
    ADMIN_TOKEN,
    "--demo-token",
    DEMO_TOKEN,
    "--timing",
    "50ms",
    "--webhook-url",
    ready.match[1] as string,
    "--webhook-secret",
    secret,
    "--webhook-schedule",
    "0,300ms,300ms",
  ]);
  stops.push(() => server.stop());
  return { url, listenOutput: () => listener.output() };
}

async function placeOrder(url: string, reference: string): Promise<void> {
  const response = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${DEMO_TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": reference,
    },
    body: JSON.stringify({ account: "0712345678", amount: 50, currency: "KES", reference }),
  });
  expect(response.status).toBe(200);
}

/** The simulator's delivery log for one reference, once it is no longer pending. */
async function settledDelivery(url: string, reference: string): Promise<AdminDeliveryDetail> {
  const admin = createAdminClient(url, ADMIN_TOKEN);
  const until = Date.now() + 20_000;
  for (;;) {
    const [delivery] = await admin.listDeliveries({ reference });
    if (delivery !== undefined && delivery.state !== "pending") return admin.getDelivery(delivery.id);
    if (Date.now() > until) throw new Error(`the delivery for ${reference} is still pending`);
    // A real-clock simulator in another process: polling is the only way to see it.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("a handler answering 503 then 200: the simulator's log shows the retry, then the success", async () => {
  const secret = generateWebhookSecret();
  const handler: WebhookHandler = await startWebhookHandler(secret, (n) => (n === 1 ? 503 : 200));
  stops.push(() => handler.close());
  const chain = await startChain(secret, handler.url);
  await placeOrder(chain.url, "FWD-1");

  const delivery = await settledDelivery(chain.url, "FWD-1");
  expect(delivery.state).toBe("delivered");
  expect(delivery.attempts.map((attempt) => [attempt.responseStatus, attempt.outcome])).toEqual([
    [503, "failed"],
    [200, "delivered"],
  ]);
  // Unchanged: the bytes and the webhook-* headers the simulator signed are what the handler got.
  expect(handler.requests).toHaveLength(2);
  for (const [index, request] of handler.requests.entries()) {
    const sent = delivery.attempts[index];
    expect(request.verified).toBe(true);
    expect(request.body.toString("utf8")).toBe(sent?.requestBody);
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type"]) {
      expect(request.headers[name], name).toBe(sent?.requestHeaders[name]);
    }
  }
  // Not deduplicated: the retry reaches the handler and is printed with its answer.
  const lines = chain
    .listenOutput()
    .split("\n")
    .filter((line) => line.includes("FWD-1"));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/ {2}FWD-1 {2}20 {2}Success {2}→ handler 503 in \d+ ms$/);
  expect(lines[1]).toMatch(/ {2}FWD-1 {2}20 {2}Success {2}→ handler 200 in \d+ ms$/);
});

it("a handler that is down: the simulator sees 502 and the printed line says why", async () => {
  const secret = generateWebhookSecret();
  const down = `http://127.0.0.1:${await freePort()}/webhooks`;
  const chain = await startChain(secret, down);
  await placeOrder(chain.url, "FWD-DOWN");

  const delivery = await settledDelivery(chain.url, "FWD-DOWN");
  expect(delivery.state).toBe("failed");
  expect(delivery.attempts.map((attempt) => attempt.responseStatus)).toEqual([502, 502, 502]);
  const line = chain
    .listenOutput()
    .split("\n")
    .find((text) => text.includes("FWD-DOWN"));
  expect(line).toContain(`→ handler unreachable at ${down} (connection_refused); answered 502`);
});

it("refuses a forward URL with credentials or a scheme other than http(s), and --status beside it", async () => {
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((text: string) => {
    errors.push(text);
  });
  const secret = generateWebhookSecret();
  expect(await listen(["--secret", secret, "--forward-to", "http://user:pass@127.0.0.1:3000/hook"])).toBe(2);
  expect(await listen(["--secret", secret, "--forward-to", "ftp://127.0.0.1/hook"])).toBe(2);
  expect(await listen(["--secret", secret, "--forward-to", "localhost:3000/hook", "--status", "503"])).toBe(2);
  const text = errors.join("\n");
  expect(text).toContain("--forward-to: a forward URL must not carry credentials");
  expect(text).toContain("--forward-to: 'ftp' URLs are refused");
  expect(text).toContain("--status and --forward-to exclude each other");
});
