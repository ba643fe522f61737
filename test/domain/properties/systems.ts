/**
 * The systems the properties run against: the real domain, and deliberately
 * broken variants that show each property can fail.
 */
import type { StatusTable } from "../../../src/contract/status-codes.ts";
import type { Order } from "../../../src/domain/model.ts";
import type { Store } from "../../../src/domain/ports.ts";
import type { AirtimeService } from "../../../src/domain/service-types.ts";
import { createMemoryStore } from "../../../src/store/memory-store.ts";
import { changeWallet } from "../../support/wallet-change.ts";
import { createTestDomain, type TestDomainOptions } from "../support.ts";

export interface System {
  readonly service: AirtimeService;
  readonly store: Store;
  readonly statusTable: StatusTable;
  readonly time: { advance(ms: number): Promise<void> };
  balance(shortcode?: string | null): Promise<number>;
  orders(): Promise<Order[]>;
}

export type MakeSystem = (options: TestDomainOptions) => Promise<System>;

export const realSystem: MakeSystem = (options) => createTestDomain(options);

/** Charges the wallet again on every replay. */
export const doubleDebitOnReplay: MakeSystem = async (options) => {
  const domain = await createTestDomain(options);
  const service: AirtimeService = {
    ...domain.service,
    async placeOrder(command) {
      const outcome = await domain.service.placeOrder(command);
      if (outcome.kind === "replayed") {
        await changeWallet(domain.store, command.customerId, outcome.order.shortcode, -outcome.order.amountCents);
      }
      return outcome;
    },
  };
  return { ...domain, service };
};

/** Ignores the payload a key is bound to: a changed payload under a used key becomes a new order. */
export const mismatchPlacesAnyway: MakeSystem = async (options) => {
  const domain = await createTestDomain(options);
  const service: AirtimeService = {
    ...domain.service,
    async placeOrder(command) {
      const outcome = await domain.service.placeOrder(command);
      if (outcome.kind !== "payload_mismatch") return outcome;
      const { idempotencyKey: _ignored, ...request } = command.request;
      return domain.service.placeOrder({ ...command, request });
    },
  };
  return { ...domain, service };
};

/** Gives every refund back twice. */
export const doubleRefund: MakeSystem = (options) => {
  const inner = createMemoryStore();
  const store: Store = {
    ...inner,
    async updateOrderIf(order, expectedVersion, refund) {
      const stored = await inner.updateOrderIf(order, expectedVersion, refund);
      if (stored && refund === true) await changeWallet(inner, order.customerId, order.shortcode, order.amountCents);
      return stored;
    },
  };
  return createTestDomain({ ...options, store });
};

/** An admin transition that writes the status straight into the store, skipping every rule. */
export const transitionIgnoresRules: MakeSystem = async (options) => {
  const domain = await createTestDomain(options);
  const service: AirtimeService = {
    ...domain.service,
    async forceTransition(orderId, status, message) {
      const order = await domain.store.getOrder(orderId);
      if (order === undefined) return { kind: "not_found" };
      const text = message ?? domain.statusTable.get(status)?.message ?? String(status);
      const next: Order = {
        ...order,
        status,
        message: text,
        history: [...order.history, { status, message: text, at: domain.clock.now() }],
      };
      await domain.store.updateOrderIf(next, order.history.length);
      return { kind: "transitioned", order: next };
    },
  };
  return { ...domain, service };
};
