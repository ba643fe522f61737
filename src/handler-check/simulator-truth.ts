/**
 * The truth a handler is judged against: an in-process simulator on a
 * virtual clock places the generated orders and forces them through their
 * statuses, and a small plugin records every status change it announces as
 * the message the dialect would send. Nothing is delivered by the simulator
 * itself: the sequence decides what reaches the handler, and when.
 */
import { pathToFinalStatus } from "../contract/status-names.ts";
import type { StatusChange } from "../domain/service-types.ts";
import { createSimulator, type Simulator } from "../simulator/create-simulator.ts";
import type { SimulatorPluginFactory } from "../domain/plugin-port.ts";
import type { DeliveryDialect, WebhookMessage } from "./delivery-dialect.ts";

/** What one generated order goes through: pending statuses first, then its final status. */
export interface OrderPlan {
  /** Pending-class statuses it passes through (3 Submitted, 31 Processing), in order. */
  readonly pending: readonly number[];
  /** Its final status; 8 Reversed goes through 20 Success first, as the provider does. */
  readonly final: number;
  readonly amount: number;
}

/** A placed order as the simulator knows it: the messages it announced, in order, and where it ended. */
export interface TrueOrder {
  readonly reference: string;
  readonly messages: readonly WebhookMessage[];
  readonly finalStatus: number;
}

export interface SimulatorTruth {
  /** The simulator's base URL, for handlers that look orders up (`GET /v1/airtime/{reference}`). */
  readonly url: string;
  /** The bearer token of the customer whose orders these are. */
  readonly token: string;
  /** Places and finalises one order per plan, under fresh references. */
  realise(plans: readonly OrderPlan[]): Promise<TrueOrder[]>;
  close(): Promise<void>;
}

export interface SimulatorTruthOptions {
  readonly dialect: DeliveryDialect;
  /** Where the simulator listens for lookups; absent, `listen` picks a free port. */
  readonly port?: number | undefined;
  /** The demo customer's token, for lookups; generated when omitted. */
  readonly token?: string;
  /** Prefix of every reference, so runs against one long-lived handler never collide. */
  readonly referencePrefix: string;
}

/** Far beyond the virtual time a run spends, so the lifecycle never finalises an order on its own. */
const HOLD_PENDING = "24h";
/** Virtual time between two forced statuses, so their timestamps differ as they would in life. */
const STEP_MS = 1_000;
/** Enough for every order a long check places. */
const BALANCE_KES = 1_000_000_000;
const ACCOUNT = "0712345678";

function recorder(onChange: (change: StatusChange) => void): SimulatorPluginFactory {
  return () => ({
    name: "handler-check-truth",
    events: {
      statusChanged: async (change) => {
        // A change announced again after a crash is the same message; record it once.
        if (change.repeated !== true) onChange(change);
      },
    },
  });
}

/**
 * @example
 * const truth = await startSimulatorTruth({ dialect: createStandardDialect(), referencePrefix: "hc-1a2b" });
 * const [order] = await truth.realise([{ pending: [3], final: 8, amount: 100 }]);
 * // order.messages: 3 Submitted, 20 Success, 8 Reversed; order.finalStatus === 8
 */
export async function startSimulatorTruth(options: SimulatorTruthOptions): Promise<SimulatorTruth> {
  const announced = new Map<string, WebhookMessage[]>();
  const sim: Simulator = await createSimulator({
    clock: "virtual",
    timing: HOLD_PENDING,
    webhooks: false,
    scenarios: false,
    // The lookup a reconciling handler polls speaks the same dialect as the webhooks.
    ...(options.dialect.profile === undefined ? {} : { provider: options.dialect.profile }),
    demo: { balance: BALANCE_KES, ...(options.token === undefined ? {} : { token: options.token }) },
    plugins: [
      recorder((change) => {
        const messages = announced.get(change.order.id) ?? [];
        messages.push(options.dialect.messageOf(change));
        announced.set(change.order.id, messages);
      }),
    ],
  });
  const demo = sim.demo;
  if (demo === undefined) throw new Error("the truth simulator has no demo customer");
  const { customerId } = demo;
  const url = await sim.listen(options.port);
  let placed = 0;

  async function realiseOne(plan: OrderPlan): Promise<TrueOrder> {
    const reference = `${options.referencePrefix}-${++placed}`;
    const outcome = await sim.service.placeOrder({
      customerId,
      request: { account: ACCOUNT, amountCents: Math.round(plan.amount * 100), currency: "KES", reference },
    });
    if (outcome.kind !== "placed") throw new Error(`the truth simulator refused order ${reference}: ${outcome.kind}`);
    for (const status of [...plan.pending, ...pathToFinalStatus(plan.final)]) {
      await sim.clock.advance(STEP_MS);
      const moved = await sim.service.forceTransition(outcome.order.id, status);
      if (moved.kind !== "transitioned") throw new Error(`cannot move ${reference} to ${status}: ${moved.kind}`);
    }
    const messages = announced.get(outcome.order.id) ?? [];
    announced.delete(outcome.order.id);
    const order = await sim.service.getOrderByReference(customerId, reference);
    return { reference, messages, finalStatus: options.dialect.statusCode(order?.status ?? plan.final) };
  }

  return {
    url,
    token: demo.token,
    async realise(plans) {
      const orders: TrueOrder[] = [];
      for (const plan of plans) orders.push(await realiseOne(plan));
      return orders;
    },
    close: () => sim.close(),
  };
}
