/**
 * The simulator side of the admin API: customers (through the domain's
 * customer directory) with their baselines, reset, orders, transitions,
 * clock and journal.
 *
 * A customer's baseline is its configured state — as seeded, created or last
 * patched, balances included — and is what a reset returns it to.
 */
import type { AdminCreateCustomerRequest, AdminUpdateCustomerRequest } from "../contract/admin-schemas.ts";
import type { CreateCustomerOutcome, CustomerDirectory, UpdateCustomerOutcome } from "../domain/customers.ts";
import type { OrderRetention } from "../domain/order-retention.ts";
import type { Customer } from "../domain/model.ts";
import type { Store } from "../domain/ports.ts";
import type { AirtimeService } from "../domain/service-types.ts";
import type { AdminControls, CreateCustomerResult, UpdateCustomerResult } from "../http/admin-routes.ts";
import type { JournalView } from "../http/journal.ts";
import { type CustomerInput, patchBaseline, toDirectoryInput, toDirectoryUpdate } from "./customer-setup.ts";

export interface AdminControlsDeps {
  readonly store: Store;
  readonly directory: CustomerDirectory;
  readonly service: AirtimeService;
  readonly journal: JournalView;
  readonly clock: AdminControls["clock"];
  readonly retention: Pick<OrderRetention, "stats">;
  /** Tells the plugins (webhook logs, scenario counters) to forget the same state. */
  readonly onReset?: (customerId?: string) => Promise<void>;
}

export interface SimulatorCustomers extends Pick<
  AdminControls,
  "createCustomer" | "updateCustomer" | "getCustomer" | "listCustomers"
> {
  /** Adds a customer at start-up (config, options, the demo customer); throws when it cannot. */
  seed(input: CustomerInput): Promise<Customer>;
}

function createResult(outcome: CreateCustomerOutcome): CreateCustomerResult {
  switch (outcome.kind) {
    case "created":
      return outcome;
    case "id_taken":
      return { kind: "already_exists", detail: `A customer with id ${JSON.stringify(outcome.id)} exists.` };
    case "token_taken":
      return { kind: "already_exists", detail: "This token belongs to another customer." };
    case "invalid":
      return { kind: "invalid", detail: outcome.detail };
    default: {
      const unreachable: never = outcome;
      throw new Error(`unmapped outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

function updateResult(outcome: UpdateCustomerOutcome): UpdateCustomerResult {
  switch (outcome.kind) {
    case "updated":
    case "not_found":
      return outcome;
    case "token_taken":
      return { kind: "already_exists", detail: "A token belongs to another customer." };
    case "invalid":
      return { kind: "invalid", detail: outcome.detail };
    default: {
      const unreachable: never = outcome;
      throw new Error(`unmapped outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

export function createAdminControls(deps: AdminControlsDeps): AdminControls & SimulatorCustomers {
  const { store, directory } = deps;
  const baselines = new Map<string, Customer>();

  async function create(input: CustomerInput): Promise<CreateCustomerResult> {
    const result = createResult(await directory.create(toDirectoryInput(input)));
    if (result.kind === "created") baselines.set(result.customer.id, result.customer);
    return result;
  }

  return {
    async seed(input) {
      const result = await create(input);
      if (result.kind !== "created")
        throw new Error(`customer ${input.id === undefined ? "(new)" : input.id}: ${result.detail}`);
      return result.customer;
    },
    async reset(customerId) {
      if (customerId === undefined) {
        await store.reset();
        for (const baseline of baselines.values()) await store.putCustomer(baseline);
        await deps.journal.clear();
        await deps.onReset?.();
        return true;
      }
      const baseline = baselines.get(customerId);
      if (baseline === undefined && (await store.getCustomer(customerId)) === undefined) return false;
      await store.reset(customerId);
      if (baseline !== undefined) await store.putCustomer(baseline);
      await deps.journal.clear(customerId);
      await deps.onReset?.(customerId);
      return true;
    },
    listCustomers: () => directory.list(),
    getCustomer: (id) => directory.get(id),
    createCustomer: (input: AdminCreateCustomerRequest) => create(input),
    async updateCustomer(id: string, patch: AdminUpdateCustomerRequest): Promise<UpdateCustomerResult> {
      const update = toDirectoryUpdate(patch);
      const result = updateResult(await directory.update(id, update));
      if (result.kind === "updated") baselines.set(id, patchBaseline(baselines.get(id) ?? result.customer, update));
      return result;
    },
    listOrders: (filter) => store.listOrders(filter),
    listOrderPage: (query) => store.listOrderPage(query),
    async stats() {
      const figures = await deps.retention.stats();
      return {
        orders: {
          retained: figures.retainedOrders,
          max: figures.maxOrders,
          evicted: figures.evictedOrders,
          evictedRecords: figures.evictedRecords,
        },
        keyRetentionMs: figures.keyLifetimeMs,
        issuedTokens: await store.countIssuedTokens(),
      };
    },
    getOrder: (id) => store.getOrder(id),
    transition: (orderId, status, message) => deps.service.forceTransition(orderId, status, message),
    clock: deps.clock,
    journal: deps.journal,
  };
}
