/**
 * A virtual-clock simulator with the webhook plugin, and small HTTP functions
 * for the webhook end-to-end tests.
 */
import { expect } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorPluginFactory } from "../../src/simulator/plugin.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { sharedFixture } from "../support/shared-fixture.ts";
import {
  createWebhookPlugin,
  findWebhookPlugin,
  type WebhookPluginOptions,
} from "../../src/webhooks/webhook-plugin.ts";

export const ADMIN_TOKEN = "admin-token-for-tests";
export const PENDING_MS = 1000;
export const TEST_SCHEDULE = [0, 100, 1000];

export interface WebhookSim {
  readonly sim: Simulator;
  readonly url: string;
  readonly dispatcher: NonNullable<ReturnType<typeof findWebhookPlugin>>["dispatcher"];
  close(): Promise<void>;
}

export async function startSim(
  options: WebhookPluginOptions = {},
  extra: { plugins?: SimulatorPluginFactory[]; seed?: number } = {},
): Promise<WebhookSim> {
  const sim = await createSimulator({
    clock: "virtual",
    timing: `${PENDING_MS}ms`,
    seed: extra.seed ?? 7,
    adminToken: ADMIN_TOKEN,
    demo: false,
    defaultPlugins: false,
    plugins: [
      // 2 s: generous enough for a loaded CI machine; tests about timeouts set their own.
      createWebhookPlugin({ schedule: TEST_SCHEDULE, timeout: "2s", jitter: 0, ...options }),
      ...(extra.plugins ?? []),
    ],
  });
  const url = await sim.listen();
  const plugin = findWebhookPlugin(sim.plugins);
  if (plugin === undefined) throw new Error("the webhook plugin is missing");
  return { sim, url, dispatcher: plugin.dispatcher, close: () => sim.close() };
}

export interface TestCustomer {
  readonly id: string;
  readonly token: string;
  readonly secret: string;
  readonly inbox: WebhookInbox;
}

/** A customer whose webhook points at a fresh inbox on a real port. */
export async function addCustomer(
  sim: Simulator,
  id: string,
  inboxOptions: Parameters<typeof createWebhookInbox>[0] | object = {},
): Promise<TestCustomer> {
  const secret = generateWebhookSecret();
  const inbox = createWebhookInbox({ secret, ...inboxOptions });
  const url = await inbox.listen();
  const token = `token-${id}-0123456789`;
  const created = await sim.customers.createCustomer({
    id,
    token,
    balance: 1_000_000,
    webhook: { url, secrets: [secret] },
  });
  expect(created.kind).toBe("created");
  return { id, token, secret, inbox };
}

/** A simulator shared by all the tests of a file, closed after them. */
export function useSim(options: WebhookPluginOptions = {}): WebhookSim {
  return sharedFixture(
    () => startSim(options),
    (env) => env.close(),
  );
}

/** A customer of a shared simulator (see {@link useSim}), its inbox closed after the file's tests. */
export function useCustomer(env: WebhookSim, id: string): TestCustomer {
  return sharedFixture(
    () => addCustomer(env.sim, id),
    (customer) => customer.inbox.close(),
  );
}

export interface PlacedOrder {
  readonly id: string;
  readonly reference: string;
}

export async function placeOrder(
  baseUrl: string,
  token: string,
  reference: string,
  extra: { headers?: Record<string, string>; amount?: number; account?: string } = {},
): Promise<PlacedOrder> {
  const response = await fetch(`${baseUrl}/v1/airtime`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...extra.headers },
    body: JSON.stringify({
      account: extra.account ?? "0712345678",
      amount: extra.amount ?? 100,
      currency: "KES",
      reference,
    }),
  });
  const body = (await response.json()) as { id: string; reference: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

export async function getStatus(
  baseUrl: string,
  token: string,
  reference: string,
): Promise<{ status: number; message: string }> {
  const response = await fetch(`${baseUrl}/v1/airtime/${encodeURIComponent(reference)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { status: number; message: string };
}

export async function admin(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read admin JSON loosely and assert on it
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/_sim${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

/**
 * Simulators and customers made inside one test, closed after it.
 *
 * @example
 * const made = perTest();
 * afterEach(() => made.cleanUp());
 * const env = await made.sim({ timeout: "500ms" });
 */
export function perTest() {
  const cleanup: Array<() => Promise<void>> = [];
  return {
    async sim(options: WebhookPluginOptions = {}, extra: Parameters<typeof startSim>[1] = {}): Promise<WebhookSim> {
      const env = await startSim(options, extra);
      cleanup.push(() => env.close());
      return env;
    },
    async customer(env: WebhookSim, id: string, options: object = {}): Promise<TestCustomer> {
      const created = await addCustomer(env.sim, id, options);
      cleanup.push(() => created.inbox.close());
      return created;
    },
    async cleanUp(): Promise<void> {
      for (const step of cleanup.splice(0).reverse()) await step();
    },
  };
}
