/**
 * Our spec's profile renders byte for byte what it rendered before dialects
 * stopped carrying our fields: every answer kind (send, replay, lookup,
 * balance, each error, the insufficient-balance order, the webhook body) of
 * a simulator without a profile, and of one serving
 * `examples/providers/airtime-harness.yaml`, against answers recorded from
 * the renderer before that change (`spec-profile-bytes.json`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { bearer, orderBody, placeOrder, send, startSimulatorOnPort } from "../support/http.ts";
import { type RecordingReceiver, startRecordingReceiver } from "../support/recording-receiver.ts";

const SPEC_PROFILE = fileURLToPath(new URL("../../examples/providers/airtime-harness.yaml", import.meta.url));
const RECORDED = fileURLToPath(new URL("./spec-profile-bytes.json", import.meta.url));
const TOKEN = "bytes-token-0000001";

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

async function specProfile(): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(SPEC_PROFILE);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/** Every answer kind, in a fixed order, from a fresh simulator on the virtual clock. */
async function recordAnswers(provider: ProviderProfile | undefined): Promise<Record<string, Answer | string[]>> {
  const receiver: RecordingReceiver = await startRecordingReceiver();
  const sim: Simulator = await startSimulatorOnPort({
    ...(provider === undefined ? {} : { provider }),
    startAt: Date.UTC(2026, 0, 1),
    timing: "1000ms",
    demo: false,
    plugins: [createWebhookPlugin({ schedule: [0], timeout: "2s", jitter: 0 })],
  });
  try {
    await sim.customers.createCustomer({ id: "bytes", token: TOKEN, balance: 150, webhook: { url: receiver.url } });
    const auth = bearer(TOKEN);
    // A problem's instance is a fresh request id: the one part of an answer no seed fixes.
    const keep = (reply: { status: number; contentType: string; text: string }): Answer => ({
      status: reply.status,
      contentType: reply.contentType,
      text: reply.text.replace(/urn:uuid:[0-9a-f-]{36}/g, "urn:uuid:REQUEST-ID"),
    });
    const body = orderBody({ reference: "BYTES-1", amount: 100 });
    const answers: Record<string, Answer | string[]> = {};
    answers.send = keep(await placeOrder(sim, body, { "idempotency-key": "bytes-key-1" }, TOKEN));
    answers.replay = keep(await placeOrder(sim, body, { "idempotency-key": "bytes-key-1" }, TOKEN));
    answers.lookupPending = keep(await send(sim, "/v1/airtime/BYTES-1", { headers: auth }));
    await sim.clock.advance(60_000);
    await vi.waitFor(() => {
      if (receiver.received.length < 1) throw new Error("the webhooks have not arrived yet");
    }, 10_000);
    answers.lookupFinal = keep(await send(sim, "/v1/airtime/BYTES-1", { headers: auth }));
    answers.balance = keep(await send(sim, "/v1/balance", { headers: auth }));
    answers.insufficient = keep(await placeOrder(sim, orderBody({ reference: "BYTES-2", amount: 1000 }), {}, TOKEN));
    answers.validation = keep(await placeOrder(sim, orderBody({ amount: -5 }), {}, TOKEN));
    answers.malformed = keep(
      await send(sim, "/v1/airtime", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        raw: "{",
      }),
    );
    answers.mismatch = keep(
      await placeOrder(sim, { ...body, amount: 20 }, { "idempotency-key": "bytes-key-1" }, TOKEN),
    );
    answers.missingToken = keep(await send(sim, "/v1/balance"));
    answers.invalidToken = keep(await send(sim, "/v1/balance", { headers: bearer("no-such-token-000") }));
    answers.notFound = keep(await send(sim, "/v1/airtime/NO-SUCH", { headers: auth }));
    answers.wrongMethod = keep(await send(sim, "/v1/balance", { method: "DELETE", headers: auth }));
    answers.unknownShortcode = keep(await send(sim, "/v1/balance?shortcode=99999", { headers: auth }));
    answers.webhooks = receiver.received.map((delivery) => delivery.body);
    return answers;
  } finally {
    await sim.close();
    await receiver.close();
  }
}

describe("our spec's profile renders what it rendered before", () => {
  let recorded: Record<string, Record<string, Answer | string[]>>;
  beforeAll(async () => {
    recorded = { default: await recordAnswers(undefined), specFile: await recordAnswers(await specProfile()) };
  });

  test("without a profile: every answer kind, byte for byte", () => {
    const before = JSON.parse(readFileSync(RECORDED, "utf8")) as unknown;
    expect(recorded.default).toEqual(before);
  });

  test("examples/providers/airtime-harness.yaml answers exactly as no profile does", () => {
    expect(recorded.specFile).toEqual(recorded.default);
  });
});
