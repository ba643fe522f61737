/**
 * A virtual-clock simulator with the webhook plugin on a real port, customers
 * whose webhooks go to real inboxes, and two shortcuts of the webhook tests
 * over the shared HTTP helpers.
 */
import { expect } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorPluginFactory } from "../../src/domain/plugin-port.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import {
  bearer,
  orderBody,
  placeOrder as placeOrderAs,
  type Reply,
  send,
  startSimulatorOnPort,
  type Target,
} from "../support/http.ts";
import { sharedFixture } from "../support/shared-fixture.ts";
import {
  createWebhookPlugin,
  findWebhookPlugin,
  type WebhookPluginOptions,
} from "../../src/webhooks/webhook-plugin.ts";

const ADMIN_TOKEN = "admin-token-for-tests";
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
  // On a real port: the webhook suites are about delivery over real connections.
  const sim = await startSimulatorOnPort({
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
  const plugin = findWebhookPlugin(sim.plugins);
  if (plugin === undefined) throw new Error("the webhook plugin is missing");
  return { sim, url: sim.url, dispatcher: plugin.dispatcher, close: () => sim.close() };
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

/** A customer's order for 100 KES (unless `extra` says otherwise), which must be accepted. */
export async function placeOrder(
  target: Target,
  token: string,
  reference: string,
  extra: { headers?: Record<string, string>; amount?: number; account?: string } = {},
): Promise<PlacedOrder> {
  const body = orderBody({ reference, amount: extra.amount ?? 100, account: extra.account ?? "0712345678" });
  const reply = await placeOrderAs(target, body, extra.headers, token);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as PlacedOrder;
}

/** `/_sim{path}` with the admin token of {@link startSim}. */
export function admin(target: Target, method: string, path: string, body?: unknown): Promise<Reply> {
  return send(target, `/_sim${path}`, { method, headers: bearer(ADMIN_TOKEN), body });
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
