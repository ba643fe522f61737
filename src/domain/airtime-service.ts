/**
 * The simulator's three operations and the admin transition, framework-free.
 *
 * `placeOrder` normalises the request, then (`order-placement.ts`) builds
 * the order at 0 Pending and hands it to the store's one atomic step (idempotency key → reference →
 * balance → debit → order → key bound to it), then starts its lifecycle. A
 * refusal changes nothing, so the client can fix the cause and retry with
 * the same key and reference.
 */
import { PENDING_STATUS, type StatusTable } from "../contract/status-codes.ts";
import { createKeyedQueue, DEFAULT_KEY_LIFETIME_MS } from "./idempotency.ts";
import { assertLifecycleOptions, createStatusChanges, type LifecycleOptions } from "./lifecycle.ts";
import type { Customer, Order, OrderFingerprint } from "./model.ts";
import { createPlanPool, type Placement, placeAtomically } from "./order-placement.ts";
import type { OrderRetention } from "./order-retention.ts";
import type { Clock, Ids, Random, Scheduler, Store } from "./ports.ts";
import type { AirtimeService, OrderEvents, PlaceOrderCommand } from "./service-types.ts";
import { ACCOUNT_PATTERN, detectService, parseKenyanMobile } from "../contract/operators.ts";

// Normalising a send-airtime request: the recipient to E.164, the service
// (explicit, else detected from the prefix), the funding wallet. The result
// is the payload an idempotency key is bound to.

export type NormalisedRequest =
  | { readonly kind: "normalised"; readonly fingerprint: OrderFingerprint }
  | { readonly kind: "service_undetectable"; readonly account: string }
  | { readonly kind: "unknown_shortcode"; readonly shortcode: string };

/**
 * The E.164 form of an account in any of the four written forms
 * (`+2547…`, `2547…`, `07…`, `7…`); undefined when it is not one.
 * Accounts outside the mobile ranges still normalise (an explicit service
 * may name them); only service detection needs a known prefix.
 */
function normaliseParsedAccount(account: string, parsed: ReturnType<typeof parseKenyanMobile>): string | undefined {
  if (parsed !== undefined) return parsed.e164;
  return ACCOUNT_PATTERN.test(account) ? `+254${account.slice(-9)}` : undefined;
}

/**
 * Resolves account, service and wallet for one customer. An explicit service
 * always wins (number portability); without one the prefix decides.
 *
 * @example
 * normaliseOrderRequest(customer, { account: "0712345678", amountCents: 1000, currency: "KES", reference: "r1" });
 * // { kind: "normalised", fingerprint: { account: "+254712345678", service: "safaricom", shortcode: null, … } }
 */
export function normaliseOrderRequest(customer: Customer, request: PlaceOrderCommand["request"]): NormalisedRequest {
  const parsed = parseKenyanMobile(request.account);
  const account = normaliseParsedAccount(request.account, parsed);
  const service = request.service ?? (parsed === undefined ? undefined : detectService(parsed.nsn));
  if (account === undefined || service === undefined) return { kind: "service_undetectable", account: request.account };

  const shortcode = request.shortcode ?? null;
  if (!customer.wallets.some((wallet) => wallet.shortcode === shortcode)) {
    return { kind: "unknown_shortcode", shortcode: request.shortcode ?? "" };
  }
  return {
    kind: "normalised",
    fingerprint: {
      account,
      service,
      amountCents: request.amountCents,
      currency: request.currency,
      reference: request.reference,
      shortcode,
    },
  };
}

// Bearer authentication: a customer's static token, or a token issued by
// `POST /v1/auth/token` that has not expired on the simulator clock.

export interface CustomerAuthenticator {
  /** The customer the token belongs to, or undefined (unknown or expired token). */
  authenticate(token: string): Promise<Customer | undefined>;
}

function createCustomerAuthenticator(deps: { readonly store: Store; readonly clock: Clock }): CustomerAuthenticator {
  return {
    async authenticate(token) {
      if (token.length === 0) return undefined;
      return (
        (await deps.store.findCustomerByToken(token)) ??
        (await deps.store.findCustomerByIssuedToken(token, deps.clock.now()))
      );
    },
  };
}

export interface AirtimeServiceDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly events: OrderEvents;
  readonly statusTable: StatusTable;
  readonly lifecycle: LifecycleOptions;
  /** How long an idempotency key binds its payload, on the simulator clock. Default 24 h. */
  readonly keyLifetimeMs?: number;
  /** Where a throwing `events` listener is reported (default: console.error); the change stands. */
  readonly onEventError?: ((error: unknown, order: Order) => void) | undefined;
  /** The order cap, told of every insert (default: none, every order kept). */
  readonly retention?: Pick<OrderRetention, "afterInsert">;
}

/**
 * Builds the domain service on the given ports. Registers the `order.step`
 * job handler on the scheduler.
 *
 * @example
 * const time = createTimeKeeper({ mode: "virtual", startAt: 0 });
 * const service = createAirtimeService({
 *   store: createMemoryStore(), clock: time.clock, scheduler: time.scheduler,
 *   ids: createSequentialIds(), random: createSeededRandom(1), events: { statusChanged: async () => {} },
 *   statusTable: DEFAULT_STATUS_TABLE, lifecycle: DEFAULT_LIFECYCLE,
 * });
 * const outcome = await service.placeOrder({ customerId: "cus_1",
 *   request: { account: "0712345678", amountCents: 10_000, currency: "KES", reference: "r1", idempotencyKey: "k1" } });
 * // outcome.kind === "placed", outcome.order.status === 0; after time.advance(2000) the order is 20 Success
 */
export function createAirtimeService(deps: AirtimeServiceDeps): AirtimeService {
  const { store, clock, statusTable, lifecycle } = deps;
  const keyLifetimeMs = deps.keyLifetimeMs ?? DEFAULT_KEY_LIFETIME_MS;
  if (!(Number.isFinite(keyLifetimeMs) && keyLifetimeMs > 0)) throw new RangeError("keyLifetimeMs must be > 0");
  assertLifecycleOptions(lifecycle, statusTable);
  const placement: Placement = {
    store,
    clock,
    scheduler: deps.scheduler,
    ids: deps.ids,
    random: deps.random,
    lifecycle,
    keyLifetimeMs,
    pendingMessage: statusTable.get(PENDING_STATUS)?.message ?? "Pending",
    statusChanges: createStatusChanges(deps),
    plans: createPlanPool(),
    retention: deps.retention,
  };
  const { statusChanges } = placement;
  const sameKey = createKeyedQueue();
  const authenticator = createCustomerAuthenticator({ store, clock });

  return {
    async placeOrder(command) {
      const customer = command.customer ?? (await store.getCustomer(command.customerId));
      if (customer === undefined) {
        // Only when the customer was deleted after authenticating; there is no wallet to fund anything.
        return { kind: "unknown_shortcode", shortcode: command.request.shortcode ?? "" };
      }
      const normalised = normaliseOrderRequest(customer, command.request);
      if (normalised.kind !== "normalised") return normalised;
      const key = command.request.idempotencyKey;
      const { fingerprint } = normalised;
      if (key === undefined) return placeAtomically(placement, command, fingerprint);
      // Same-key requests of this process answer in arrival order: a replay sees the order as its placement left it.
      return sameKey.run(`${command.customerId}\u0000${key}`, () => placeAtomically(placement, command, fingerprint));
    },

    getOrderByReference(customerId, reference) {
      return store.getOrderByReference(customerId, reference);
    },

    async findOrder(customerId, reference) {
      const order = await store.getOrderByReference(customerId, reference);
      if (order !== undefined) return { kind: "found", order };
      const evicted = await store.getEvictedOrderByReference(customerId, reference, clock.now());
      return evicted === undefined ? { kind: "not_found" } : { kind: "evicted", evicted };
    },

    async getBalance(customerId, shortcode) {
      const customer = await store.getCustomer(customerId);
      const wallets = customer?.wallets ?? [];
      const wallet = wallets.find((candidate) => candidate.shortcode === (shortcode ?? null));
      if (wallet === undefined) return { kind: "unknown_shortcode", shortcode: shortcode ?? "" };
      return { kind: "balance", wallet, wallets };
    },

    forceTransition(orderId, status, message) {
      return statusChanges.transition(orderId, status, message);
    },

    authenticate(token) {
      return authenticator.authenticate(token);
    },
  };
}
