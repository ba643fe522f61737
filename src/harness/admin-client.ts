/**
 * The simulator's admin API (`/_sim/…`), used only when the harness is given
 * sim-only powers: fresh customers per run, advancing a virtual clock, forcing
 * outcomes. Admin calls never go through the fault proxy and are never
 * judged by checks; a failing admin call is a harness error.
 */
import {
  type AdminClock,
  AdminClockSchema,
  type AdminCustomer,
  AdminCustomerSchema,
  type AdminOrder,
  AdminOrderListSchema,
  type TransitionAction,
} from "../contract/admin-schemas.ts";
import type { ScenarioFileInput } from "../scenarios/schema.ts";
import {
  type AdminDelivery,
  type AdminDeliveryDetail,
  AdminDeliveryDetailSchema,
  AdminDeliveryListSchema,
} from "../webhooks/admin-schemas.ts";
import { HarnessError } from "./checker.ts";
import { createHttpClient, type HttpClient } from "./http-client.ts";

export interface CreateCustomerInput {
  readonly id?: string;
  readonly name?: string;
  readonly token?: string;
  readonly balance?: number;
  /** Wallets beside the default one, by shortcode (balances in KES). */
  readonly wallets?: readonly { readonly shortcode: string; readonly balance: number }[];
  readonly webhook?: { readonly url: string; readonly secrets?: readonly string[] };
}

/**
 * A failed admin call: `status` is the HTTP status, absent when the
 * simulator could not be reached at all (`code` then says why, e.g. ECONNREFUSED).
 */
export class AdminApiError extends HarnessError {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** A named action, or an explicit status code of the table. */
export type TransitionTarget = TransitionAction | { readonly status: number; readonly message?: string };

export type TransitionResult =
  { readonly kind: "transitioned"; readonly status: number } | { readonly kind: "refused"; readonly detail: string };

export interface AdminClient {
  readonly url: string;
  reset(customerId?: string): Promise<void>;
  createCustomer(input: CreateCustomerInput): Promise<AdminCustomer>;
  getCustomer(id: string): Promise<AdminCustomer>;
  listOrders(filter?: { readonly customer?: string; readonly reference?: string }): Promise<AdminOrder[]>;
  /** Forces an outcome; `refused` when the order's current status does not allow it (409). */
  transition(orderId: string, target: TransitionTarget): Promise<TransitionResult>;
  clock(): Promise<AdminClock>;
  advance(ms: number): Promise<AdminClock | undefined>;
  /** Webhook deliveries, oldest first. */
  listDeliveries(filter?: {
    readonly customer?: string;
    readonly order?: string;
    readonly reference?: string;
  }): Promise<AdminDelivery[]>;
  /** One delivery with every attempt. */
  getDelivery(id: string): Promise<AdminDeliveryDetail>;
  /** Uploads a scenario (replacing one of the same name), for `X-Sim-Scenario` to name. */
  loadScenario(scenario: ScenarioFileInput): Promise<void>;
  /** Deactivates a loaded scenario everywhere and forgets it. */
  removeScenario(name: string): Promise<void>;
  /** Activates a loaded scenario for one customer's orders. */
  activateScenario(name: string, customerId: string): Promise<void>;
}

/** `?name=value&…` of the filters given; empty when none is. */
function queryOf(filter: Readonly<Record<string, string | undefined>>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, value);
  return query.size > 0 ? `?${query}` : "";
}

/**
 * @example
 * const admin = createAdminClient(sim.url, sim.adminToken);
 * const customer = await admin.createCustomer({ balance: 50_000 });
 * await admin.advance(2_000);
 */
export function createAdminClient(url: string, token: string): AdminClient {
  const connection: AdminConnection = { client: createHttpClient(url), token };

  return {
    url,
    async reset(customerId) {
      await callAdmin(
        connection,
        "POST",
        `/_sim/reset${customerId === undefined ? "" : `?customer=${encodeURIComponent(customerId)}`}`,
      );
    },
    async createCustomer(input) {
      return AdminCustomerSchema.parse(await callAdmin(connection, "POST", "/_sim/customers", input));
    },
    async getCustomer(id) {
      return AdminCustomerSchema.parse(await callAdmin(connection, "GET", `/_sim/customers/${encodeURIComponent(id)}`));
    },
    async listOrders(filter = {}) {
      return allAdminPages(connection, "/_sim/orders", filter, (body) => {
        const page = AdminOrderListSchema.parse(body);
        return { items: page.orders, next: page.next_cursor };
      });
    },
    async transition(orderId, target) {
      const body = (await callAdmin(
        connection,
        "POST",
        `/_sim/orders/${encodeURIComponent(orderId)}/transition`,
        typeof target === "string" ? { action: target } : target,
        [409],
      )) as {
        refused?: number;
        detail?: string;
        status?: unknown;
      };
      if (body.refused !== undefined) return { kind: "refused", detail: body.detail ?? "" };
      return { kind: "transitioned", status: Number(body.status) };
    },
    async clock() {
      return AdminClockSchema.parse(await callAdmin(connection, "GET", "/_sim/clock"));
    },
    async advance(ms) {
      const body = await callAdmin(connection, "POST", "/_sim/clock/advance", { ms });
      const parsed = AdminClockSchema.safeParse(body);
      return parsed.success ? parsed.data : undefined;
    },
    async listDeliveries(filter = {}) {
      return allAdminPages(connection, "/_sim/deliveries", filter, (body) => {
        const page = AdminDeliveryListSchema.parse(body);
        return { items: page.deliveries, next: page.next_cursor };
      });
    },
    async getDelivery(id) {
      return AdminDeliveryDetailSchema.parse(
        await callAdmin(connection, "GET", `/_sim/deliveries/${encodeURIComponent(id)}`),
      );
    },
    async loadScenario(scenario) {
      await callAdmin(connection, "POST", "/_sim/scenarios", scenario);
    },
    async removeScenario(name) {
      await callAdmin(connection, "DELETE", `/_sim/scenarios/${encodeURIComponent(name)}`);
    },
    async activateScenario(name, customerId) {
      await callAdmin(connection, "POST", `/_sim/scenarios/${encodeURIComponent(name)}/activate`, {
        customer: customerId,
      });
    },
  };
}

/** Where admin calls go, and the token they carry. */
interface AdminConnection {
  readonly client: HttpClient;
  readonly token: string;
}

/**
 * One admin call: a network failure or an unexpected status throws an
 * `AdminApiError`, while a status in `allow` comes back as a value the
 * caller judges (a refused transition is an answer, not a harness error).
 */
async function callAdmin(
  { client, token }: AdminConnection,
  method: string,
  path: string,
  body?: unknown,
  allow: readonly number[] = [],
): Promise<unknown> {
  const outcome = await client.send({
    method,
    path,
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (outcome.kind === "network_error") {
    throw new AdminApiError(`admin API ${method} ${path}: ${outcome.code} ${outcome.message}`, undefined, outcome.code);
  }
  if (allow.includes(outcome.status)) return { refused: outcome.status, detail: outcome.text.slice(0, 300) };
  if (outcome.status < 200 || outcome.status >= 300) {
    throw new AdminApiError(
      `admin API ${method} ${path}: HTTP ${outcome.status} ${outcome.text.slice(0, 300)}`,
      outcome.status,
      undefined,
    );
  }
  return outcome.json;
}

/** Every item of a paged listing: follows `next_cursor` until it is null. */
async function allAdminPages<T>(
  connection: AdminConnection,
  path: string,
  filter: Readonly<Record<string, string | undefined>>,
  parse: (body: unknown) => { items: T[]; next: string | null },
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = parse(await callAdmin(connection, "GET", `${path}${queryOf({ ...filter, limit: "1000", cursor })}`));
    items.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return items;
}
