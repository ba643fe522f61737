/**
 * The simulator's settings, normalised once. `createSimulator()`'s options
 * are validated by the one schema of the settings (`SimulatorSettingsSchema`,
 * the config file's rules), completed from one table of defaults, and frozen;
 * the wiring reads that object as it is. The embedded domain's options are
 * normalised the same way, here too. A default a part owns stays that part's
 * and is given once, in its home: the lifecycle's timing and failure rate
 * are the domain's (`DEFAULT_LIFECYCLE`, applied by `embeddedDomainSettings`),
 * the job queue's shards the Redis adapters' (`redis/redis-settings.ts`), a
 * token's lifetime the customer directory's.
 */
import { randomInt } from "node:crypto";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { DEFAULT_ORDER_LIMITS, type OrderLimits } from "../contract/public-schemas.ts";
import {
  createStatusTable,
  DEFAULT_STATUS_TABLE,
  type StatusDefinition,
  type StatusTable,
} from "../contract/status-codes.ts";
import { DEFAULT_TOKEN_TTL_SECONDS } from "../domain/customers.ts";
import { DEFAULT_KEY_LIFETIME_MS } from "../domain/idempotency.ts";
import { DEFAULT_LIFECYCLE, type OutcomeShare } from "../domain/lifecycle.ts";
import type { Order } from "../domain/model.ts";
import { DEFAULT_MAX_ORDERS, finalIn } from "../domain/order-retention.ts";
import type { SimulatorPluginFactory } from "../domain/plugin-port.ts";
import type { Job, Scheduler, Store } from "../domain/ports.ts";
import type { Timing } from "../domain/timing.ts";
import { DEFAULT_JOURNAL_LIMIT, type JournalRecord } from "../http/journal.ts";
import type { ScenarioOptions } from "../scenarios/options.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { createTimeKeeper, type TimeKeeper } from "../time/time-keeper.ts";
import type { WebhookPluginOptions } from "../webhooks/webhook-plugin.ts";
import { type ParsedSimulatorSettings as Parsed, SimulatorSettingsSchema } from "./config-schema.ts";
import { generateToken } from "./credentials.ts";
import type { CustomerInput } from "./customer-setup.ts";
import type { DemoCustomerOptions, SimulatorOptions } from "./simulator-options.ts";

/** `createSimulator()`'s defaults; the ones other parts own are theirs (see above). */
const SIMULATOR_DEFAULTS = Object.freeze({
  clock: "real",
  store: "memory",
  redisDurability: "memory",
  admin: true,
  defaultPlugins: true,
  journalLimit: DEFAULT_JOURNAL_LIMIT,
  tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS,
  limits: DEFAULT_ORDER_LIMITS,
  statusTable: DEFAULT_STATUS_TABLE,
  demoBalance: 100_000,
  onError: (error: unknown) => console.error("airtime simulator:", error),
} as const);

/** The demo customer to seed, its balance defaulted. */
export interface DemoCustomerSettings extends DemoCustomerOptions {
  readonly balance: number;
}

/** What `createSimulator()` reads: every option validated, defaulted and frozen. */
export interface SimulatorSettings {
  readonly clock: "real" | "virtual";
  readonly startAt: number | undefined;
  /** The seed as given; the run's seed also depends on a state file (`runSeed`). */
  readonly seed: number | undefined;
  /** The lifecycle's, parsed; undefined for the domain's defaults. */
  readonly timing: Timing | undefined;
  readonly failureRate: number | undefined;
  readonly outcomes: Parsed["outcomes"];
  /** Generated when not given. */
  readonly adminToken: string;
  readonly admin: boolean;
  readonly cors: readonly string[] | undefined;
  readonly tokenTtlSeconds: number;
  readonly maxOrders: number | undefined;
  readonly keyLifetimeMs: number | undefined;
  readonly store: string;
  readonly redisDurability: NonNullable<Parsed["redisDurability"]>;
  readonly redisJobShards: number | undefined;
  readonly stateFile: string | undefined;
  readonly limits: OrderLimits;
  readonly journalLimit: number;
  readonly statusTable: StatusTable;
  readonly provider: ProviderProfile | undefined;
  /** Undefined with `demo: false`. */
  readonly demo: DemoCustomerSettings | undefined;
  readonly customers: readonly CustomerInput[];
  readonly onRequest: ((request: JournalRecord) => void) | undefined;
  readonly onError: (error: unknown) => void;
  readonly defaultPlugins: boolean;
  readonly plugins: readonly SimulatorPluginFactory[];
  readonly webhooks: WebhookPluginOptions | false | undefined;
  readonly scenarios: ScenarioOptions | false | undefined;
}

/** The one validation of the settings, the config file's rules: a RangeError naming the first broken one. */
function parseSettings(options: SimulatorOptions): Parsed {
  const parsed = SimulatorSettingsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RangeError(`${issue?.path.join(".") || "options"} ${issue?.message ?? "is not valid"}`);
}

function resolveStatusTable(table: StatusTable | readonly StatusDefinition[] | undefined): StatusTable {
  if (table === undefined) return SIMULATOR_DEFAULTS.statusTable;
  return table instanceof Map ? table : createStatusTable(table as Parameters<typeof createStatusTable>[0]);
}

/** The order limits the public API enforces: the settings' own, each defaulted. */
function orderLimits(limits: Parsed["limits"]): OrderLimits {
  const defaults = SIMULATOR_DEFAULTS.limits;
  return Object.freeze({
    minAmount: limits?.minAmount ?? defaults.minAmount,
    maxAmount: limits?.maxAmount ?? defaults.maxAmount,
    // The schema holds currencies to at least one, which its array type does not say.
    currencies: (limits?.currencies ?? defaults.currencies) as OrderLimits["currencies"],
  });
}

function demoSettings(demo: SimulatorOptions["demo"]): DemoCustomerSettings | undefined {
  if (demo === false) return undefined;
  return Object.freeze({ ...demo, balance: demo?.balance ?? SIMULATOR_DEFAULTS.demoBalance });
}

/**
 * Throws a RangeError naming the first broken setting.
 *
 * @example
 * simulatorSettings({ clock: "virtual" }).journalLimit; // 10_000
 */
export function simulatorSettings(options: SimulatorOptions): SimulatorSettings {
  const settings = parseSettings(options);
  return Object.freeze({
    clock: settings.clock ?? SIMULATOR_DEFAULTS.clock,
    startAt: options.startAt,
    seed: settings.seed,
    timing: settings.timing,
    failureRate: settings.failureRate,
    outcomes: settings.outcomes,
    adminToken: settings.adminToken ?? generateToken("adm"),
    admin: settings.admin ?? SIMULATOR_DEFAULTS.admin,
    cors: settings.cors,
    tokenTtlSeconds: settings.tokenTtlSeconds ?? SIMULATOR_DEFAULTS.tokenTtlSeconds,
    maxOrders: settings.maxOrders,
    keyLifetimeMs: options.idempotencyRetentionMs,
    store: settings.store ?? SIMULATOR_DEFAULTS.store,
    redisDurability: settings.redisDurability ?? SIMULATOR_DEFAULTS.redisDurability,
    redisJobShards: settings.redisJobShards,
    stateFile: settings.stateFile,
    limits: orderLimits(settings.limits),
    journalLimit: settings.journalLimit ?? SIMULATOR_DEFAULTS.journalLimit,
    statusTable: resolveStatusTable(options.statusTable),
    provider: options.provider,
    demo: demoSettings(options.demo),
    customers: options.customers ?? [],
    onRequest: options.onRequest,
    onError: options.onError ?? SIMULATOR_DEFAULTS.onError,
    defaultPlugins: options.defaultPlugins ?? SIMULATOR_DEFAULTS.defaultPlugins,
    plugins: options.plugins ?? [],
    webhooks: options.webhooks,
    scenarios: options.scenarios,
  });
}

/** The run's seed: a saved run's own, else the one given, else drawn. */
export function runSeed(settings: SimulatorSettings, saved: { readonly seed: number } | undefined): number {
  return saved?.seed ?? settings.seed ?? randomInt(2 ** 31);
}

export interface EmbeddedDomainOptions {
  /** `virtual` (default): nothing happens until `time.advance(ms)`. `real`: wall-clock timers. */
  readonly clock?: "virtual" | "real";
  /** Start of virtual time, ms since the epoch (default: now). */
  readonly startAt?: number | undefined;
  /** Seed of the one random source (ids, delays, failure coins). Default 1. */
  readonly seed?: number;
  /** `random` (default): `ord_` + 20 base32 characters; `sequential`: `ord_1`, `ord_2`, … */
  readonly ids?: "random" | "sequential";
  /** Pending → final delay (default fixed 2 s). */
  readonly timing?: Timing | undefined;
  /** Share of orders that fail, 0..1 (default 0). */
  readonly failureRate?: number | undefined;
  /** Final status of a failing order (default 2 Failed). */
  readonly failureStatus?: number;
  /** The failed outcomes and their shares; replaces failureRate and failureStatus (default: none). */
  readonly outcomes?: readonly OutcomeShare[] | undefined;
  readonly statusTable?: StatusTable;
  /** Default 24 h. */
  readonly keyLifetimeMs?: number | undefined;
  /** Orders kept in full before the oldest final ones are evicted (default 300,000). */
  readonly maxOrders?: number | undefined;
  /** Told once, when the order cap is first reached (default: console.warn). */
  readonly onFirstEviction?: (message: string) => void;
  /** Another Store adapter (default: a fresh memory store). */
  readonly store?: Store;
  /** The clock and its scheduler, from the backend (default: built here from `clock` and `startAt`). */
  readonly time?: TimeKeeper;
  /** The scheduler jobs go to, e.g. one that sends some types to a shared scheduler (default: `time`'s). */
  readonly scheduler?: Scheduler;
  /** Generated customer secrets: `crypto` (default) or `seeded` from the random source. */
  readonly secrets?: "crypto" | "seeded";
  /** Called when a scheduled job throws (default: console.error). */
  readonly onJobError?: (error: unknown, job: Job) => void;
  /** Called when a status-change listener throws; the change stands (default: console.error). */
  readonly onEventError?: (error: unknown, order: Order) => void;
}

/** The embedded domain's own defaults; the lifecycle's are `DEFAULT_LIFECYCLE`. */
const EMBEDDED_DOMAIN_DEFAULTS = Object.freeze({
  clock: "virtual",
  seed: 1,
  statusTable: DEFAULT_STATUS_TABLE,
  keyLifetimeMs: DEFAULT_KEY_LIFETIME_MS,
  maxOrders: DEFAULT_MAX_ORDERS,
  onFirstEviction: (message: string) => console.warn(`airtime simulator: ${message}`),
} as const);

/**
 * The embedded domain's options with every default applied, the memory
 * store and the time keeper built when none is given.
 *
 * @example
 * embeddedDomainSettings({ ids: "sequential" }).lifecycle.timing; // { kind: "fixed", ms: 2000 }
 */
export function embeddedDomainSettings(options: EmbeddedDomainOptions) {
  const statusTable = options.statusTable ?? EMBEDDED_DOMAIN_DEFAULTS.statusTable;
  const time =
    options.time ??
    createTimeKeeper({
      mode: options.clock ?? EMBEDDED_DOMAIN_DEFAULTS.clock,
      startAt: options.startAt,
      onError: options.onJobError,
    });
  return Object.freeze({
    statusTable,
    store: options.store ?? createMemoryStore({ settled: finalIn(statusTable) }),
    time,
    scheduler: options.scheduler ?? time.scheduler,
    seed: options.seed ?? EMBEDDED_DOMAIN_DEFAULTS.seed,
    ids: options.ids,
    secrets: options.secrets,
    keyLifetimeMs: options.keyLifetimeMs ?? EMBEDDED_DOMAIN_DEFAULTS.keyLifetimeMs,
    maxOrders: options.maxOrders ?? EMBEDDED_DOMAIN_DEFAULTS.maxOrders,
    onFirstEviction: options.onFirstEviction ?? EMBEDDED_DOMAIN_DEFAULTS.onFirstEviction,
    onEventError: options.onEventError,
    lifecycle: Object.freeze({
      timing: options.timing ?? DEFAULT_LIFECYCLE.timing,
      failureRate: options.failureRate ?? DEFAULT_LIFECYCLE.failureRate,
      failureStatus: options.failureStatus ?? DEFAULT_LIFECYCLE.failureStatus,
      outcomes: options.outcomes,
    }),
  });
}
