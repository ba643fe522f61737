/**
 * A dialect answers with what its profile states and nothing of ours: for
 * each example provider, every member of every answer kind (send, lookup,
 * balance, errors, the insufficient-balance order, the webhook body) sits at
 * a pointer the profile states (its fields, `extra`, `passthrough`, the
 * event and delivery id). A `passthrough` entry keeps a member of ours at its
 * pointer, a kept history written in the dialect's statuses.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { statedPointers, unstatedMembers } from "../support/stated-pointers.ts";
import { bearer, orderBody, placeOrder, send, startSimulatorOnPort } from "../support/http.ts";
import { type RecordingReceiver, startRecordingReceiver } from "../support/recording-receiver.ts";

const PROVIDERS = new URL("../../examples/providers/", import.meta.url);
const EXAMPLES = readdirSync(PROVIDERS).filter((name) => name.endsWith(".yaml"));
const TOKEN = "fields-token-000001";

async function load(name: string): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(fileURLToPath(new URL(name, PROVIDERS)));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

interface Served {
  readonly sim: Simulator;
  readonly receiver: RecordingReceiver;
}

async function serve(provider: ProviderProfile): Promise<Served> {
  const receiver = await startRecordingReceiver();
  const sim = await startSimulatorOnPort({
    provider,
    timing: "1000ms",
    demo: false,
    plugins: [createWebhookPlugin({ schedule: [0], timeout: "2s", jitter: 0 })],
  });
  await sim.customers.createCustomer({ id: "fields", token: TOKEN, balance: 150, webhook: { url: receiver.url } });
  return { sim, receiver };
}

/** Every answer kind's body, by kind. */
async function answers({ sim, receiver }: Served): Promise<Record<string, { kind: string; body: unknown }>> {
  const auth = bearer(TOKEN);
  const placed = await placeOrder(sim, orderBody({ reference: "FIELDS-1", amount: 100 }), {}, TOKEN);
  await sim.clock.advance(60_000);
  await vi.waitFor(() => {
    if (receiver.received.length < 1) throw new Error("no webhook yet");
  }, 10_000);
  const lookup = await send(sim, "/v1/airtime/FIELDS-1", { headers: auth });
  const balance = await send(sim, "/v1/balance", { headers: auth });
  const insufficient = await placeOrder(sim, orderBody({ reference: "FIELDS-2", amount: 1000 }), {}, TOKEN);
  const invalid = await placeOrder(sim, orderBody({ amount: -5 }), {}, TOKEN);
  const missing = await send(sim, "/v1/airtime/NO-SUCH", { headers: auth });
  const anonymous = await send(sim, "/v1/balance");
  return {
    send: { kind: "order", body: placed.body },
    lookup: { kind: "lookup", body: lookup.body },
    balance: { kind: "balance", body: balance.body },
    insufficient: { kind: "insufficient", body: insufficient.body },
    invalid: { kind: "error", body: invalid.body },
    notFound: { kind: "error", body: missing.body },
    unauthorized: { kind: "error", body: anonymous.body },
    webhook: { kind: "webhook", body: JSON.parse(receiver.received[0]?.body ?? "null") },
  };
}

describe.each(EXAMPLES)("%s answers with what it states", (name) => {
  let served: Served;
  let profile: ProviderProfile;
  let bodies: Awaited<ReturnType<typeof answers>>;
  beforeAll(async () => {
    profile = await load(name);
    served = await serve(profile);
    bodies = await answers(served);
  });
  afterAll(async () => {
    await served.sim.close();
    await served.receiver.close();
  });

  test("no member of any answer sits outside the profile's pointers", () => {
    const stated = statedPointers(profile);
    for (const [what, { kind, body }] of Object.entries(bodies)) {
      expect(body, what).toBeTypeOf("object");
      const pointers =
        kind === "insufficient"
          ? [...(stated.order ?? []), ...(stated.error ?? [])]
          : stated[kind as keyof typeof stated];
      expect({ what, unstated: unstatedMembers(body, pointers) }).toEqual({ what, unstated: [] });
    }
  });
});

describe("a passthrough list keeps the members it names", () => {
  let served: Served;
  let bodies: Awaited<ReturnType<typeof answers>>;
  beforeAll(async () => {
    const file = await load("word-statuses-hmac.yaml");
    const bodiesOf = file.bodies ?? {};
    const kept: ProviderProfile = {
      ...file,
      bodies: {
        ...bodiesOf,
        lookup: { ...bodiesOf.lookup, passthrough: { history: "/result/history", createdAt: "/meta/created" } },
        balance: { ...bodiesOf.balance, passthrough: { currency: "/result/currency", status: "/result/status" } },
      },
    };
    served = await serve(kept);
    bodies = await answers(served);
  });
  afterAll(async () => {
    await served.sim.close();
    await served.receiver.close();
  });

  test("the lookup keeps its history, in the dialect's words, and its creation time", () => {
    const lookup = bodies.lookup?.body as { result: Record<string, unknown>; meta: { created: string } };
    const history = lookup.result.history as { status: unknown; message: string; at: string }[];
    expect(history.map((entry) => entry.status)).toEqual(["PENDING", lookup.result.status]);
    expect(["COMPLETED", "FAILED", "TIMEOUT", "INSUFFICIENT_FUNDS"]).toContain(lookup.result.status);
    expect(history[0]?.message).toBe("Pending");
    expect(lookup.meta.created).toBe(history[0]?.at);
    expect(Object.keys(lookup.result).sort()).toEqual(["amount", "history", "ref", "status", "transactionId"]);
  });

  test("the balance keeps its currency and its status, in the dialect's words, and nothing else of ours", () => {
    expect(bodies.balance?.body).toEqual({
      result: { available: expect.any(Number), currency: "KES", status: "COMPLETED" },
    });
  });
});
