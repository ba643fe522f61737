/**
 * How webhooks, scenarios and test-only extensions plug into the simulator:
 * a plugin is built from the simulator's context (its ports and domain
 * service) and contributes listeners, admin routes, request effects and a
 * shutdown step. createSimulator builds every plugin once, at start.
 *
 * Types only, below every feature: the webhooks, the scenarios and the
 * dashboard implement it, the HTTP layer and the simulator call it. It names
 * no feature's state; what one feature needs from the backend (the shared
 * delivery log, the shared attempt counters) is that plugin's own option.
 * The request journal's record is here too: plugins hear of every request.
 */
import type { z } from "zod";
import type { ErrorCode } from "../contract/error-codes.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { StatusTable } from "../contract/status-codes.ts";
import type { Order } from "./model.ts";
import type { OrderRetention, RetentionGuard } from "./order-retention.ts";
import type { Clock, Ids, JobPlacement, Random, Scheduler, Store } from "./ports.ts";
import type { AirtimeService, OrderEvents } from "./service-types.ts";
import type { ScenarioEngine } from "./scenario-engine.ts";
import type { Timing } from "./timing.ts";
import type { JournalEntry } from "../contract/admin-schemas.ts";

/**
 * An express handler or middleware. Its request and response are express's,
 * left untyped here so the package's types do not make every user install
 * `@types/express`; an extension that has it annotates its handlers with
 * express's types.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type AdminHandler = (req: any, res: any, next: (error?: unknown) => void) => unknown;

/** The express Router an extension registers on, by the methods extensions use. */
export interface AdminRouter {
  get(path: string, ...handlers: AdminHandler[]): unknown;
  post(path: string, ...handlers: AdminHandler[]): unknown;
  put(path: string, ...handlers: AdminHandler[]): unknown;
  delete(path: string, ...handlers: AdminHandler[]): unknown;
  all(path: string, ...handlers: AdminHandler[]): unknown;
}

/**
 * What the admin router lends an extension, so a plugin answers errors and
 * validates the way the admin API does without importing the HTTP layer.
 */
export interface AdminRouteKit {
  /** An error the admin router answers as problem+json with this `code`. */
  problem(code: ErrorCode, detail: string, options?: { errors?: { pointer: string; detail: string }[] }): Error;
  /** Parses `value`, or throws a `validation_failed` problem naming `what`. */
  validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S>;
  /** 405 with `Allow` for another method on a known path. */
  methodNotAllowed(allowed: readonly string[]): AdminHandler;
}

/** How a plugin adds routes to the admin API (`/_sim/…`). */
export interface AdminExtension {
  readonly name: string;
  /**
   * The extension's home page, an open route of its own: `GET /` lists it
   * under `name` and sends a browser there. One extension at most names one.
   */
  readonly home?: AdminHome;
  /** Registers the routes on a router mounted at `/_sim` behind the admin token. */
  register(router: AdminRouter, kit: AdminRouteKit): void;
  /**
   * Registers routes under `/_sim` that answer without the admin token:
   * public pages (the dashboard's HTML and assets) whose data calls still
   * send it.
   */
  registerOpen?(router: AdminRouter, kit: AdminRouteKit): void;
}

/** A page a browser opens first, e.g. `{ name: "dashboard", path: "/_sim/ui" }`. */
export interface AdminHome {
  readonly name: string;
  /** The full path, `/_sim/…`. */
  readonly path: string;
}

/**
 * The routes an admin extension serves, declared once: the admin document
 * describes them and the extension validates with their schemas.
 * Importable without a running simulator.
 */
export type AdminExtensionSpec = readonly RouteDeclaration[];

export interface SimulatorContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly statusTable: StatusTable;
  /** The provider's dialect the public API and the webhooks speak (our spec's by default). */
  readonly dialect: DialectRenderer;
  readonly service: AirtimeService;
  /** The request journal (what `GET /_sim/journal` lists). */
  readonly journal: Journal;
  /** The pending → final timing orders follow unless a scenario sets theirs (the dashboard draws it). */
  readonly timing: Timing;
  /** What the order cap has evicted so far (`GET /_sim/stats`). */
  readonly retention: Pick<OrderRetention, "stats">;
  /** Where a plugin's jobs run: this process's scheduler, or one every process on a Redis store shares. */
  readonly jobs: JobPlacement;
  /**
   * Every plugin of the simulator, this one included, filled in as they are
   * built: read it once the simulator runs (when answering a request), not
   * while building.
   */
  readonly plugins: readonly SimulatorPlugin[];
}

export interface SimulatorPlugin {
  readonly name: string;
  /** Told of every stored status change (after the store is updated). */
  readonly events?: OrderEvents;
  readonly admin?: AdminExtension;
  readonly adminSpec?: AdminExtensionSpec;
  /** Resolves scenario effects for send-airtime requests; several engines combine in order. */
  readonly scenarios?: ScenarioEngine;
  /**
   * Awaited after an order is placed and before its HTTP response is
   * written, when the order asks for it (webhook sent before the response).
   */
  beforeResponse?(order: Order): Promise<void>;
  /** Told of every HTTP request once its response has ended, as the journal records it. */
  onRequest?(request: JournalRecord): void;
  /** Holds orders back from eviction under the order cap, and forgets what it kept for evicted ones. */
  readonly retention?: RetentionGuard;
  /** Told of an admin reset (all, or one customer) so per-customer state is forgotten too. */
  reset?(customerId?: string): Promise<void>;
  /** Awaited until background work started so far (webhook attempts) has settled. */
  settle?(): Promise<void>;
  /**
   * Told when the simulator starts closing, before it waits for requests in
   * flight: end long-lived responses (event streams) here.
   */
  closing?(): void;
  /**
   * Shutdown: finish background work until `deadline` aborts (stop at once
   * without one), then say what was left undone.
   */
  close?(deadline?: AbortSignal): Promise<LeftPending | void>;
  /**
   * What `--state-file` keeps of this plugin across a restart: `save` runs
   * after `close`, `load` at start, before any request (JSON-safe data).
   */
  readonly state?: PluginState;
}

export interface PluginState {
  save(): Promise<unknown>;
  load(saved: unknown): Promise<void>;
}

/** What a plugin left undone at shutdown, counted by what it is: `{ "undelivered webhooks": 2 }`. */
export type LeftPending = Readonly<Record<string, number>>;

export type SimulatorPluginFactory = (context: SimulatorContext) => SimulatorPlugin | Promise<SimulatorPlugin>;

/** The request journal: what a plugin hears of each request, and what the admin API reads. */
/** What an idempotency key did for a send-airtime request. */
export type IdempotencyOutcome = "new" | "replayed" | "mismatch";

/** What the pipeline records; turned into a `JournalEntry` only when read (the hot path stays cheap). */
export interface JournalRecord extends Omit<JournalEntry, "id" | "wallTime" | "fired"> {
  /** Wall-clock time when the request arrived, Unix ms. */
  readonly wallMs: number;
  readonly fired: readonly string[];
  /** Only for a send-airtime request that carried an idempotency key and reached the domain. */
  readonly idempotency?: IdempotencyOutcome;
  /**
   * Present (true) when the request stored a new order, whatever the client
   * got back: a scenario may drop or fail the response after the commit.
   */
  readonly placed?: true;
}

/** One page of `Journal.page`: a step back in time from `before`. */
export interface JournalPageQuery {
  readonly customerId?: string | undefined;
  /** Only requests answered with this HTTP status. */
  readonly status?: number | undefined;
  /** Only requests that arrived at or after this simulator time. */
  readonly from?: number | undefined;
  /** Only requests that arrived at or before this simulator time. */
  readonly to?: number | undefined;
  /** Only entries older than this entry id (the previous page's cursor). */
  readonly before?: number | undefined;
  readonly limit: number;
}

export interface JournalPage {
  /** Newest last, as in `list`. */
  readonly entries: JournalEntry[];
  /** The id to pass as `before` for the older entries, or undefined when there are none. */
  readonly olderThan: number | undefined;
}

export interface Journal {
  record(entry: JournalRecord): void;
  /** Newest last; `limit` keeps the newest N. */
  list(filter?: { customerId?: string; limit?: number }): JournalEntry[];
  /** The newest `limit` matching entries older than `before`, newest last. */
  page(query: JournalPageQuery): JournalPage;
  /** Forgets every entry, or one customer's entries. */
  clear(customerId?: string): void;
}
