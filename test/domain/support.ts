/**
 * Shared fixtures for the domain tests: a wired domain on a virtual clock
 * with one funded customer, and a recorder of status changes.
 */
import type { Order } from "../../src/domain/model.ts";
import type { Store } from "../../src/domain/ports.ts";
import type { PlaceOrderCommand, StatusChange } from "../../src/domain/service-types.ts";
import type { Timing } from "../../src/domain/timing.ts";
import { createEmbeddedDomain, type EmbeddedDomain } from "../../src/simulator/embedded-domain.ts";

export const CUSTOMER = "cus_test";
export const TOKEN = "tok_test";
export const SHORTCODE = "174379";
export const START = 1_700_000_000_000;

export interface TestDomain extends EmbeddedDomain {
  readonly changes: StatusChange[];
  /** The balance of one of the test customer's wallets, in cents. */
  balance(shortcode?: string | null): Promise<number>;
  orders(): Promise<Order[]>;
}

export interface TestDomainOptions {
  readonly balanceCents?: number;
  readonly shortcodeBalanceCents?: number;
  readonly timing?: Timing;
  readonly failureRate?: number;
  readonly seed?: number;
  readonly store?: Store;
}

export async function createTestDomain(options: TestDomainOptions = {}): Promise<TestDomain> {
  const domain = createEmbeddedDomain({
    clock: "virtual",
    startAt: START,
    ids: "sequential",
    seed: options.seed ?? 1,
    ...(options.timing === undefined ? {} : { timing: options.timing }),
    ...(options.failureRate === undefined ? {} : { failureRate: options.failureRate }),
    ...(options.store === undefined ? {} : { store: options.store }),
    onJobError: (error) => {
      throw error;
    },
  });
  const created = await domain.customers.create({
    id: CUSTOMER,
    tokens: [TOKEN],
    apiKey: "key_test",
    wallets: [
      { balanceCents: options.balanceCents ?? 1_000_000 },
      { shortcode: SHORTCODE, balanceCents: options.shortcodeBalanceCents ?? 50_000 },
    ],
  });
  if (created.kind !== "created") throw new Error(`fixture customer not created: ${created.kind}`);
  const changes: StatusChange[] = [];
  domain.events.subscribe({
    statusChanged: async (change) => {
      changes.push(change);
    },
  });
  return {
    ...domain,
    changes,
    async balance(shortcode = null) {
      const customer = await domain.store.getCustomer(CUSTOMER);
      const wallet = customer?.wallets.find((candidate) => candidate.shortcode === shortcode);
      if (wallet === undefined) throw new Error(`no wallet ${shortcode}`);
      return wallet.balanceCents;
    },
    orders: () => domain.store.listOrders({ customerId: CUSTOMER }),
  };
}

function orderRequest(overrides: Partial<PlaceOrderCommand["request"]> = {}): PlaceOrderCommand["request"] {
  return { account: "0712345678", amountCents: 10_000, currency: "KES", reference: "ref-1", ...overrides };
}

export function command(
  overrides: Partial<PlaceOrderCommand["request"]> = {},
  extra: Omit<PlaceOrderCommand, "customerId" | "request"> = {},
): PlaceOrderCommand {
  return { customerId: CUSTOMER, request: orderRequest(overrides), ...extra };
}
