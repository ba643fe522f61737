/**
 * A simulator ready for an integrator's test suite, whatever the test runner:
 * on a virtual clock and a free port, with a webhook inbox that verifies
 * every signature, a small fetch client authenticated as the demo customer,
 * and a reset that puts all of it back between tests. The vitest fixture
 * (`airtime-harness/vitest`) wraps this; node:test or jest users call it in
 * their own hooks.
 */
import type { WebhookPayload } from "../contract/webhook-schemas.ts";
import { createSimulator, type Simulator } from "../simulator/create-simulator.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import { createWebhookInbox, type WebhookInbox } from "../webhooks/inbox.ts";
import { generateWebhookSecret } from "../webhooks/signing.ts";
import { createTestClient, type TestClient } from "./test-client.ts";

/** The simulator's options, less those the test simulator decides (clock, demo customer's webhook). */
export type TestSimulatorOptions = Omit<SimulatorOptions, "clock" | "demo" | "stateFile" | "store"> & {
  /** The demo customer's bearer token; generated when omitted. */
  readonly token?: string | undefined;
  /** The demo customer's wallet balance in KES (default 100,000). */
  readonly balance?: number | undefined;
};

export interface ExpectWebhookOptions {
  /** The order's reference. */
  readonly reference: string;
  /** Only a webhook with this status code counts (e.g. 20 for success). */
  readonly status?: number | undefined;
  /** How long to wait, wall clock; default 5000 ms. */
  readonly timeoutMs?: number | undefined;
}

export interface TestSimulator {
  readonly sim: Simulator;
  /** The public API as the demo customer. */
  readonly client: TestClient;
  /** The inbox the demo customer's webhooks go to. */
  readonly inbox: WebhookInbox;
  /** The demo customer's `whsec_` secret, which the inbox verifies with. */
  readonly webhookSecret: string;
  /** Moves the virtual clock on and waits for the webhooks it caused to be sent. */
  advance(ms: number): Promise<void>;
  /** Resolves with the verified webhook of an order, or rejects after `timeoutMs`. */
  expectWebhook(options: ExpectWebhookOptions): Promise<WebhookPayload>;
  /** Back to the start between tests: customers, balances, orders, keys, and an empty inbox. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a simulator (virtual clock, port 0) and an inbox for its webhooks.
 *
 * @example
 * const harness = await startTestSimulator();
 * await harness.client.sendAirtime({ account: "0712345678", amount: 100, currency: "KES", reference: "A-1" });
 * await harness.advance(2_000);
 * const webhook = await harness.expectWebhook({ reference: "A-1", status: 20 });
 * await harness.close();
 */
export async function startTestSimulator(options: TestSimulatorOptions = {}): Promise<TestSimulator> {
  const { token, balance, ...simulatorOptions } = options;
  const webhookSecret = generateWebhookSecret();
  const inbox = createWebhookInbox({ secret: webhookSecret });
  const webhookUrl = await inbox.listen();
  let sim: Simulator;
  try {
    sim = await createSimulator({
      ...simulatorOptions,
      clock: "virtual",
      demo: { token, balance, webhook: { url: webhookUrl, secrets: [webhookSecret] } },
    });
  } catch (error) {
    await inbox.close();
    throw error;
  }
  const url = await sim.listen(0);
  // `demo` is always seeded here: the options above never turn it off.
  const demoToken = (sim.demo as NonNullable<Simulator["demo"]>).token;

  return {
    sim,
    client: createTestClient(url, demoToken),
    inbox,
    webhookSecret,
    advance: (ms) => sim.clock.advance(ms),
    async expectWebhook({ reference, status, timeoutMs }) {
      const delivery = await inbox.waitFor(reference, {
        ...(status === undefined ? {} : { status }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      // The inbox records only deliveries whose signature it verified; `webhook` is set when the body is a valid payload.
      if (delivery.webhook === undefined) throw new Error(`the webhook for ${reference} is not a valid payload`);
      return delivery.webhook;
    },
    async reset() {
      await sim.settle();
      await resetThroughAdminApi(sim);
      inbox.clear();
    },
    async close() {
      await sim.close();
      await inbox.close();
    },
  };
}

/** The admin API's reset, which tells the plugins too (webhook queues, scenario counters). */
async function resetThroughAdminApi(sim: Simulator): Promise<void> {
  const response = await fetch(`${sim.url}/_sim/reset`, {
    method: "POST",
    headers: { authorization: `Bearer ${sim.adminToken}` },
  });
  if (!response.ok) throw new Error(`resetting the simulator answered ${response.status}: ${await response.text()}`);
}
