/**
 * A simulator with the built-in plugins on a virtual clock, a `qa` customer
 * whose webhooks go to a verifying inbox on a real port, and the few calls
 * the scenario tests make, over the shared HTTP helpers: in-process, or over
 * real connections for the suites whose scenarios drop them.
 */
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { createWebhookInbox, type InboxDelivery, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { balanceOf, bearer, lookup, placeOrder, send } from "../support/http.ts";
import { sharedFixture } from "../support/shared-fixture.ts";

export const DEMO_TOKEN = "demo-token-for-scenarios";
/** The `qa` customer, whose webhooks go to the harness's inbox. */
export const QA_TOKEN = "qa-token-for-scenarios";
export const QA_CUSTOMER = "qa";
const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export interface Harness {
  readonly sim: Simulator;
  readonly inbox: WebhookInbox;
  /** Accepted (verified) webhooks for one reference, in arrival order. */
  webhooksFor(reference: string): InboxDelivery[];
  order(input: OrderInput): Promise<OrderReply>;
  lookup(reference: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  balance(token?: string): Promise<number>;
  admin(method: string, path: string, body?: unknown, contentType?: string): Promise<AdminReply>;
  close(): Promise<void>;
}

export interface OrderInput {
  readonly account: string;
  readonly reference: string;
  readonly amount?: number;
  readonly key?: string;
  readonly service?: string;
  readonly token?: string;
  readonly headers?: Record<string, string>;
}

export type OrderReply =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: Headers;
      readonly body: Record<string, unknown>;
      readonly elapsedMs: number;
    }
  | { readonly kind: "network_error"; readonly message: string };

export interface AdminReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface HarnessReach {
  /** Listen on a port and reach the simulator over real connections (dropped connections need one). */
  readonly onPort?: boolean;
}

/** A harness shared by all the tests of a file, closed after them. */
export function useHarness(reach: HarnessReach = {}): Harness {
  return sharedFixture(
    () => startHarness({}, reach),
    (harness) => harness.close(),
  );
}

export async function startHarness(options: SimulatorOptions = {}, reach: HarnessReach = {}): Promise<Harness> {
  const inbox = createWebhookInbox({ secret: WEBHOOK_SECRET });
  const inboxUrl = await inbox.listen();
  const sim = await createSimulator({
    clock: "virtual",
    seed: 7,
    demo: { token: DEMO_TOKEN, balance: 100_000 },
    customers: [
      { id: QA_CUSTOMER, token: QA_TOKEN, balance: 100_000, webhook: { url: inboxUrl, secrets: [WEBHOOK_SECRET] } },
    ],
    webhooks: { schedule: "0,100ms,1s", jitter: 0 },
    ...options,
  }).catch(async (error: unknown) => {
    await inbox.close();
    throw error;
  });
  if (reach.onPort === true) await sim.listen();
  return {
    sim,
    inbox,
    webhooksFor: (reference) => inbox.deliveries().filter((delivery) => delivery.webhook?.reference === reference),
    async order(input) {
      const started = performance.now();
      try {
        const reply = await placeOrder(
          sim,
          {
            account: input.account,
            amount: input.amount ?? 100,
            currency: "KES",
            reference: input.reference,
            ...(input.service === undefined ? {} : { service: input.service }),
          },
          { ...(input.key === undefined ? {} : { "idempotency-key": input.key }), ...input.headers },
          input.token ?? DEMO_TOKEN,
        );
        return {
          kind: "response",
          status: reply.status,
          headers: reply.headers,
          body: reply.body,
          elapsedMs: performance.now() - started,
        };
      } catch (error) {
        return { kind: "network_error", message: String((error as Error).cause ?? error) };
      }
    },
    async lookup(reference, token = DEMO_TOKEN) {
      const reply = await lookup(sim, reference, token);
      return { status: reply.status, body: reply.body };
    },
    balance: (token = DEMO_TOKEN) => balanceOf(sim, token),
    async admin(method, path, body, contentType = "application/json") {
      const reply = await send(sim, path, {
        method,
        headers: { ...bearer(sim.adminToken), ...(body === undefined ? {} : { "content-type": contentType }) },
        ...(body === undefined ? {} : { raw: typeof body === "string" ? body : JSON.stringify(body) }),
      });
      return { status: reply.status, body: reply.body ?? {} };
    },
    async close() {
      await sim.close();
      await inbox.close();
    },
  };
}

/** The response of an order that must have been answered. */
export function answered(reply: OrderReply) {
  if (reply.kind !== "response") throw new Error(`expected an HTTP response, got a network error: ${reply.message}`);
  return reply;
}
