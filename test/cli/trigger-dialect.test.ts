/**
 * `trigger --provider FILE --forward-to URL`: a handler written for the
 * enveloped dialect (examples/providers/enveloped-string-money.yaml), which
 * verifies with the `standardwebhooks` package and reads the provider's
 * envelope, receives `trigger success` and `trigger failed` in that dialect
 * and verifies both; the run compiles the profile once.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { trigger } from "../../src/cli/trigger.ts";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import type * as CompileModule from "../../src/contract/provider-profile/compile.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";

// Counts compilations: a run compiles the provider's profile once, however many parts read it.
vi.mock("../../src/contract/provider-profile/compile.ts", async (importOriginal) => {
  const original = await importOriginal<typeof CompileModule>();
  return { ...original, compileProfile: vi.fn(original.compileProfile) };
});

const ENVELOPED = fileURLToPath(new URL("../../examples/providers/enveloped-string-money.yaml", import.meta.url));
const SECRET = generateWebhookSecret();

/** What the enveloped provider's documentation says a webhook is. */
interface EnvelopedEvent {
  readonly event: string;
  readonly data: { readonly id: string; readonly reference: string; readonly status: number; readonly amount: string };
}

interface Handled {
  readonly verified: boolean;
  readonly event: EnvelopedEvent | undefined;
}

let server: Server;
let url: string;
const handled: Handled[] = [];

beforeAll(async () => {
  const webhook = new Webhook(SECRET);
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const event = webhook.verify(body, request.headers as Record<string, string>) as EnvelopedEvent;
        handled.push({ verified: true, event });
        response.writeHead(204).end();
      } catch {
        handled.push({ verified: false, event: undefined });
        response.writeHead(400).end();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function triggerStatus(status: string): Promise<number> {
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    return await trigger([status, "--provider", ENVELOPED, "--forward-to", url, "--secret", SECRET, "--json"]);
  } finally {
    vi.restoreAllMocks();
  }
}

test("trigger success and trigger failed reach the handler in the enveloped dialect, and it verifies both", async () => {
  expect(await triggerStatus("success")).toBe(0);
  expect(await triggerStatus("failed")).toBe(0);
  expect(handled.map((entry) => entry.verified)).toEqual([true, true]);
  const [success, failed] = handled.map((entry) => entry.event);
  expect(success).toMatchObject({ event: "airtime.completed", data: { status: 20, amount: "100.00" } });
  expect(failed).toMatchObject({ event: "airtime.failed", data: { status: 2, amount: "100.00" } });
  expect(success?.data.reference).toMatch(/^trigger-success-/);
});

test("a handler with another secret refuses them: the signature is real", async () => {
  const other = new Webhook(generateWebhookSecret());
  const body = JSON.stringify({ event: "airtime.completed", data: {} });
  const signed = new Webhook(SECRET).sign("msg_1", new Date(), body);
  const headers = {
    "webhook-id": "msg_1",
    "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
    "webhook-signature": signed,
  };
  expect(() => other.verify(body, headers)).toThrow();
});

test("one run compiles the provider's profile once, for the simulator and for reading its answers", async () => {
  vi.mocked(compileProfile).mockClear();
  expect(await triggerStatus("success")).toBe(0);
  const ofTheProvider = vi.mocked(compileProfile).mock.calls.filter(([file]) => file?.name !== undefined);
  expect(ofTheProvider).toHaveLength(1);
});
