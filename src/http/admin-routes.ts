/**
 * The admin API under `/_sim`, behind its own bearer token: reset,
 * customers, orders, clock and journal, plus the routes plugins register.
 * Bodies and queries are validated with the schemas their route declares;
 * the work itself is done by the simulator's `AdminControls`.
 */
import type { AdminHome } from "../domain/plugin-port.ts";
import { Router } from "express";
import { DEFAULT_PAGE_LIMIT } from "../contract/admin-pages.ts";
import type {
  AdminCreateCustomerRequest,
  AdminStats,
  AdminUpdateCustomerRequest,
  TransitionAction,
} from "../contract/admin-schemas.ts";
import {
  ADVANCE_CLOCK_ROUTE,
  CREATE_CUSTOMER_ROUTE,
  GET_JOURNAL_ROUTE,
  LIST_CUSTOMERS_ROUTE,
  LIST_ORDERS_ROUTE,
  TRANSITION_ORDER_ROUTE,
  UPDATE_CUSTOMER_ROUTE,
} from "../contract/routes/admin-routes.ts";
import { jsonBodySchema, querySchema } from "../contract/routes/route.ts";
import type { ErrorCode } from "../contract/error-codes.ts";
import { FAILED_STATUS, REVERSED_STATUS, SUCCESS_STATUS, TIMEOUT_STATUS } from "../contract/status-codes.ts";
import type { Customer, Order } from "../domain/model.ts";
import type { OrderPage, OrderPageQuery } from "../domain/ports.ts";
import type { TransitionOutcome } from "../domain/service-types.ts";
import { createAdminAuth } from "./request-context.ts";
import { HttpProblem, type ValidationIssue } from "./http-problem.ts";
import type { JournalView } from "./journal.ts";
import { presentAdminCustomer, presentAdminOrder } from "./presenters.ts";
import { methodNotAllowed } from "./method-not-allowed.ts";
import { validate } from "./validation.ts";

export type CreateCustomerResult =
  | { readonly kind: "created"; readonly customer: Customer }
  | { readonly kind: "already_exists"; readonly detail: string }
  | { readonly kind: "invalid"; readonly detail: string };

export type UpdateCustomerResult =
  | { readonly kind: "updated"; readonly customer: Customer }
  | { readonly kind: "not_found" }
  | { readonly kind: "already_exists"; readonly detail: string }
  | { readonly kind: "invalid"; readonly detail: string };

/** What the admin API drives; implemented by the simulator. */
export interface AdminControls {
  /** False when `customerId` names no customer. */
  reset(customerId?: string): Promise<boolean>;
  listCustomers(): Promise<Customer[]>;
  getCustomer(id: string): Promise<Customer | undefined>;
  createCustomer(input: AdminCreateCustomerRequest): Promise<CreateCustomerResult>;
  updateCustomer(id: string, patch: AdminUpdateCustomerRequest): Promise<UpdateCustomerResult>;
  listOrders(filter: { customerId?: string }): Promise<Order[]>;
  /** One page of orders, oldest first (see `Store.listOrderPage`). */
  listOrderPage(query: OrderPageQuery): Promise<OrderPage>;
  /** Orders kept and evicted, tokens held. */
  stats(): Promise<AdminStats>;
  getOrder(id: string): Promise<Order | undefined>;
  transition(orderId: string, status: number, message?: string): Promise<TransitionOutcome>;
  readonly clock: {
    readonly mode: "real" | "virtual";
    now(): number;
    advance(ms: number): Promise<void>;
  };
  readonly journal: JournalView;
}

export interface AdminApiDeps {
  readonly adminToken: string;
  readonly authenticateCustomer: (token: string) => Promise<Customer | undefined>;
  readonly controls: AdminControls;
  /** The plugins' admin extensions (the plugin port's `AdminExtension`), registered after the core routes. */
  readonly extensions: readonly {
    readonly name: string;
    readonly home?: AdminHome | undefined;
    register(router: Router, kit: typeof EXTENSION_KIT): void;
    /** Routes that answer without the admin token (public pages). */
    registerOpen?(router: Router, kit: typeof EXTENSION_KIT): void;
  }[];
}

/** What an extension is lent (the `AdminRouteKit` of the plugin port). */
const EXTENSION_KIT = {
  problem: (code: ErrorCode, detail: string, options?: { errors?: ValidationIssue[] }) =>
    new HttpProblem(code, detail, options),
  validate,
  methodNotAllowed,
};

const ACTION_STATUS: Record<TransitionAction, number> = {
  succeed: SUCCESS_STATUS,
  fail: FAILED_STATUS,
  timeout: TIMEOUT_STATUS,
  reverse: REVERSED_STATUS,
};

function singleQuery(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function queryObject(query: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = singleQuery(query[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** `customers` is small (people create them): a page is a slice, the cursor its offset. */
function customerPage(customers: readonly Customer[], limit: number, cursor: string | undefined) {
  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 36);
  const end = start + limit;
  return { customers: customers.slice(start, end), next_cursor: end < customers.length ? end.toString(36) : null };
}

function notFound(what: string): HttpProblem {
  return new HttpProblem("not_found", `No ${what} with this id.`);
}

function clockBody(controls: AdminControls) {
  const now = controls.clock.now();
  return { mode: controls.clock.mode, now, iso: new Date(now).toISOString() };
}

/**
 * The core admin routes in groups, each a function of its own, then the
 * plugins' routes. The order of registration is the order express matches
 * in, so a group's `router.all` (405 with `Allow`) follows its methods.
 */
export function createAdminRouter(deps: AdminApiDeps): Router {
  const { controls } = deps;
  const router = Router({ caseSensitive: true });
  for (const extension of deps.extensions) extension.registerOpen?.(router, EXTENSION_KIT);
  router.use(createAdminAuth(deps.adminToken, deps.authenticateCustomer));

  router.post("/reset", async (req, res) => {
    const customer = singleQuery(req.query.customer);
    if (customer !== undefined && (typeof customer !== "string" || customer === "")) {
      throw new HttpProblem("validation_failed", "`customer` must be one customer id.", {
        errors: [{ pointer: "#/customer", detail: "must be a non-empty string" }],
      });
    }
    if (!(await controls.reset(customer))) throw notFound("customer");
    res.json({ reset: customer ?? "all" });
  });
  router.all("/reset", methodNotAllowed(["POST"]));

  registerCustomerRoutes(router, controls);
  registerOrderRoutes(router, controls);

  router.get("/stats", async (_req, res) => {
    res.json(await controls.stats());
  });
  router.all("/stats", methodNotAllowed(["GET"]));

  registerClockAndJournalRoutes(router, controls);

  for (const extension of deps.extensions) extension.register(router, EXTENSION_KIT);
  return router;
}

/** `/customers` and `/customers/:id`: list, create, read and update, each outcome mapped to its answer. */
function registerCustomerRoutes(router: Router, controls: AdminControls): void {
  router.get("/customers", async (req, res) => {
    const query = validate(querySchema(LIST_CUSTOMERS_ROUTE), queryObject(req.query, ["limit", "cursor"]), "query");
    const page = customerPage(await controls.listCustomers(), query.limit ?? DEFAULT_PAGE_LIMIT, query.cursor);
    res.json({ customers: page.customers.map(presentAdminCustomer), next_cursor: page.next_cursor });
  });
  router.post("/customers", async (req, res) => {
    const input = validate(jsonBodySchema(CREATE_CUSTOMER_ROUTE), req.body, "customer");
    const result = await controls.createCustomer(input);
    switch (result.kind) {
      case "created":
        res.status(201).json(presentAdminCustomer(result.customer));
        return;
      case "already_exists":
        throw new HttpProblem("already_exists", result.detail);
      case "invalid":
        throw new HttpProblem("validation_failed", `The customer is not valid: ${result.detail}.`);
      default: {
        const unreachable: never = result;
        throw new Error(`unmapped create result ${JSON.stringify(unreachable)}`);
      }
    }
  });
  router.all("/customers", methodNotAllowed(["GET", "POST"]));

  router.get("/customers/:id", async (req, res) => {
    const customer = await controls.getCustomer(req.params.id as string);
    if (customer === undefined) throw notFound("customer");
    res.json(presentAdminCustomer(customer));
  });
  router.patch("/customers/:id", async (req, res) => {
    const patch = validate(jsonBodySchema(UPDATE_CUSTOMER_ROUTE), req.body, "customer update");
    const result = await controls.updateCustomer(req.params.id as string, patch);
    switch (result.kind) {
      case "updated":
        res.json(presentAdminCustomer(result.customer));
        return;
      case "not_found":
        throw notFound("customer");
      case "already_exists":
        throw new HttpProblem("already_exists", result.detail);
      case "invalid":
        throw new HttpProblem("validation_failed", `The customer update is not valid: ${result.detail}.`);
      default: {
        const unreachable: never = result;
        throw new Error(`unmapped update result ${JSON.stringify(unreachable)}`);
      }
    }
  });
  router.all("/customers/:id", methodNotAllowed(["GET", "PATCH"]));
}

/**
 * The schema a transition body is judged by. The request is a union, whose
 * own error is a bare "Invalid input"; a body naming `action` (or `status`)
 * is judged by that branch alone, so a bad action is answered with the
 * actions the branch's enum allows.
 */
function transitionSchemaFor(body: unknown) {
  const union = jsonBodySchema(TRANSITION_ORDER_ROUTE);
  if (typeof body !== "object" || body === null) return union;
  const branch = union.options.find((option) => Object.keys(option.shape).some((key) => key in body));
  return branch ?? union;
}

/** `/orders`, one order, and the forced transition an admin uses to decide an outcome. */
function registerOrderRoutes(router: Router, controls: AdminControls): void {
  router.get("/orders", async (req, res) => {
    const query = validate(
      querySchema(LIST_ORDERS_ROUTE),
      queryObject(req.query, [
        "customer",
        "reference",
        "reference_prefix",
        "status",
        "order",
        "from",
        "to",
        "limit",
        "cursor",
      ]),
      "order query",
    );
    const page = await controls.listOrderPage({
      limit: query.limit ?? DEFAULT_PAGE_LIMIT,
      ...(query.customer === undefined ? {} : { customerId: query.customer }),
      ...(query.reference === undefined ? {} : { reference: query.reference }),
      ...(query.reference_prefix === undefined ? {} : { referencePrefix: query.reference_prefix }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.order === "newest" ? { newestFirst: true } : {}),
      ...(query.from === undefined ? {} : { from: query.from }),
      ...(query.to === undefined ? {} : { to: query.to }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    res.json({ orders: page.orders.map(presentAdminOrder), next_cursor: page.nextCursor });
  });
  router.all("/orders", methodNotAllowed(["GET"]));

  router.get("/orders/:id", async (req, res) => {
    const order = await controls.getOrder(req.params.id as string);
    if (order === undefined) throw notFound("order");
    res.json(presentAdminOrder(order));
  });
  router.all("/orders/:id", methodNotAllowed(["GET"]));

  router.post("/orders/:id/transition", async (req, res) => {
    const body = validate(transitionSchemaFor(req.body), req.body, "transition");
    const [status, message] = "action" in body ? [ACTION_STATUS[body.action], undefined] : [body.status, body.message];
    const outcome = await controls.transition(req.params.id as string, status, message);
    switch (outcome.kind) {
      case "transitioned":
        res.json(presentAdminOrder(outcome.order));
        return;
      case "not_found":
        throw notFound("order");
      case "invalid_transition":
        throw new HttpProblem(
          "invalid_transition",
          `An order cannot move from status ${outcome.from} to ${outcome.to}: a final status never changes, except Success → Reversed.`,
        );
      default: {
        const unreachable: never = outcome;
        throw new Error(`unmapped transition outcome ${JSON.stringify(unreachable)}`);
      }
    }
  });
  router.all("/orders/:id/transition", methodNotAllowed(["POST"]));
}

/** The clock (read, and advanced when virtual) and the request journal, newest first. */
function registerClockAndJournalRoutes(router: Router, controls: AdminControls): void {
  router.get("/clock", (_req, res) => {
    res.json(clockBody(controls));
  });
  router.all("/clock", methodNotAllowed(["GET"]));
  router.post("/clock/advance", async (req, res) => {
    const { ms } = validate(jsonBodySchema(ADVANCE_CLOCK_ROUTE), req.body, "clock advance");
    if (controls.clock.mode !== "virtual") {
      throw new HttpProblem("clock_not_virtual", "The clock is real; start the simulator with --clock virtual.");
    }
    await controls.clock.advance(ms);
    res.json(clockBody(controls));
  });
  router.all("/clock/advance", methodNotAllowed(["POST"]));

  router.get("/journal", async (req, res) => {
    const query = validate(
      querySchema(GET_JOURNAL_ROUTE),
      queryObject(req.query, ["customer", "status", "from", "to", "limit", "cursor"]),
      "journal query",
    );
    const page = await controls.journal.page({
      customerId: query.customer,
      status: query.status,
      from: query.from,
      to: query.to,
      before: query.cursor === undefined ? undefined : Number.parseInt(query.cursor, 36),
      limit: query.limit ?? DEFAULT_PAGE_LIMIT,
    });
    res.json({ entries: page.entries, next_cursor: page.olderThan?.toString(36) ?? null });
  });
  router.all("/journal", methodNotAllowed(["GET"]));
}
