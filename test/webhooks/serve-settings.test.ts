/**
 * Webhook settings from outside the code: `serve --webhook-*` flags (a real
 * child process delivering to a real inbox) and the config file's
 * `webhooks:` key.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { loadSimulatorConfig } from "../../src/simulator/config.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { startServe } from "../support/processes.ts";

const cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function inbox(secret: string): Promise<WebhookInbox> {
  const created = createWebhookInbox({ secret });
  await created.listen();
  cleanup.push(() => created.close());
  return created;
}

it("serve --webhook-url/--webhook-secret/--webhook-schedule/--webhook-timeout points the demo customer at a receiver", async () => {
  const secret = generateWebhookSecret();
  const receiver = await inbox(secret);
  // Fail the first attempt, so the schedule from the flag is what delivers it.
  receiver.respondWith(({ attempt }) => (attempt === 1 ? 503 : 200));
  const { server, url } = await startServe([
    "--timing",
    "100ms",
    "--demo-token",
    "demo-token-for-webhooks",
    "--webhook-url",
    receiver.url,
    "--webhook-secret",
    secret,
    "--webhook-schedule",
    "0,200ms,1s",
    "--webhook-timeout",
    "2s",
  ]);
  cleanup.push(() => server.stop());
  const placed = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: { authorization: "Bearer demo-token-for-webhooks", "content-type": "application/json" },
    body: JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference: "SERVE-1" }),
  });
  expect(placed.status).toBe(200);
  const delivery = await receiver.waitFor("SERVE-1", { timeoutMs: 10_000 });
  expect(delivery.attempt).toBe(2);
  expect(delivery.webhook).toMatchObject({ status: 20, final: true });
  const [first, second] = receiver.requests();
  // The second attempt waited about the schedule's 200 ms (real clock here).
  expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(150);
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
});

it("serve refuses bad webhook flags with a clear message", async () => {
  const secret = generateWebhookSecret();
  const cases: Array<[string[], RegExp]> = [
    [["--webhook-url", "ftp://x"], /--webhook-url must be an http\(s\) URL/],
    [["--webhook-secret", secret], /--webhook-secret needs --webhook-url/],
    [["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", "whsec_short"], /whsec_/],
    [["--webhook-schedule", "0,soon"], /--webhook-schedule: 'soon' is not a duration/],
    [["--webhook-timeout", "0"], /--webhook-timeout: a webhook timeout must be > 0 ms/],
  ];
  for (const [args, message] of cases) {
    const parsed = await parseServeArgs(args, {});
    expect(parsed.kind, args.join(" ")).toBe("error");
    if (parsed.kind === "error") expect(parsed.message).toMatch(message);
  }
  const ok = await parseServeArgs(
    ["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", `${secret},${secret}`, "--webhook-schedule", "0,1s"],
    { AIRTIME_SIM_WEBHOOK_TIMEOUT: "750ms" },
  );
  expect(ok.kind).toBe("settings");
  if (ok.kind === "settings") {
    expect(ok.settings.options.demo).toMatchObject({
      webhook: { url: "http://127.0.0.1:9/h", secrets: [secret, secret] },
    });
    expect(ok.settings.options.webhooks).toEqual({ schedule: [0, 1000], timeout: 750 });
  }
});

it("the config file's webhooks key sets schedule, timeout, jitter and intermediate; bad values name the path", async () => {
  const dir = await mkdtemp(join(tmpdir(), "webhook-config-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const good = join(dir, "good.yaml");
  await writeFile(
    good,
    [
      "webhooks:",
      "  schedule: [0, 100ms, 1s]",
      "  timeout: 500ms",
      "  jitter: 0",
      "  intermediate: true",
      "customers:",
      "  - id: acme",
      "    webhook: { url: 'http://127.0.0.1:9/hooks' }",
    ].join("\n"),
  );
  const options = await loadSimulatorConfig(good);
  expect(options.webhooks).toEqual({ schedule: [0, 100, 1000], timeout: 500, jitter: 0, intermediate: true });
  const bad = join(dir, "bad.yaml");
  await writeFile(bad, "webhooks:\n  schedule: 0,later\n  jitter: 2\n");
  await expect(loadSimulatorConfig(bad)).rejects.toThrow(
    /webhooks\.schedule: 'later' is not a duration[\s\S]*webhooks\.jitter/,
  );
});
