/**
 * How webhooks, scenarios and test-only extensions plug into the simulator:
 * a plugin is built from the simulator's context (its ports and domain
 * service) and contributes listeners, admin routes, request effects and a
 * shutdown step. createSimulator builds every plugin once, at start.
 */
import type { z } from "zod";
import type { ErrorCode } from "../contract/error-codes.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { StatusTable } from "../contract/status-codes.ts";
import type { Order } from "../domain/model.ts";
import type { OrderRetention, RetentionGuard } from "../domain/order-retention.ts";
import type { Clock, Ids, JobPlacement, Random, Scheduler, Store } from "../domain/ports.ts";
import type { AirtimeService, OrderEvents } from "../domain/service-types.ts";
import type { ScenarioEngine, SharedAttemptCounters } from "../domain/scenario-engine.ts";
import type { Journal, JournalRecord } from "../http/journal.ts";
import type { DeliveryStore } from "../webhooks/ports.ts";

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
  /** Registers the routes on a router mounted at `/_sim` behind the admin token. */
  register(router: AdminRouter, kit: AdminRouteKit): void;
  /**
   * Registers routes under `/_sim` that answer without the admin token:
   * public pages (the dashboard's HTML and assets) whose data calls still
   * send it.
   */
  registerOpen?(router: AdminRouter, kit: AdminRouteKit): void;
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
  /** What the order cap has evicted so far (`GET /_sim/stats`). */
  readonly retention: Pick<OrderRetention, "stats">;
  /** Scenario attempt counts shared by every instance on a Redis store; absent on the memory store. */
  readonly attemptCounters?: SharedAttemptCounters | undefined;
  /** Where a plugin's jobs run: this process's scheduler, or one every process on a Redis store shares. */
  readonly jobs: JobPlacement;
  /** The webhook delivery log every instance on a Redis store shares; absent on the memory store. */
  readonly deliveryStore?: DeliveryStore | undefined;
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
