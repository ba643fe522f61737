/**
 * Options of `createSimulator()`, as a caller writes them; `simulator-settings.ts`
 * validates them and applies the defaults.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { OrderLimits } from "../contract/public-schemas.ts";
import type { StatusDefinition, StatusTable } from "../contract/status-codes.ts";
import type { Timing } from "../domain/timing.ts";
import type { JournalRecord } from "../http/journal.ts";
import type { ScenarioOptions } from "../scenarios/options.ts";
import type { WebhookPluginOptions } from "../webhooks/webhook-plugin.ts";
import type { CustomerInput } from "./customer-setup.ts";
import type { SimulatorSettingsInput } from "./config-schema.ts";
import type { SimulatorPluginFactory } from "../domain/plugin-port.ts";

export interface DemoCustomerOptions {
  /** The demo customer's bearer token; generated when omitted. */
  readonly token?: string | undefined;
  /** Its default wallet balance in KES (default 100,000). */
  readonly balance?: number | undefined;
  /** Its API key for `POST /v1/auth/token`; generated when omitted. */
  readonly apiKey?: string | undefined;
  /** Where its webhooks go; a `whsec_` secret is generated when none is given. */
  readonly webhook?: { readonly url: string; readonly secrets?: readonly string[] | undefined } | undefined;
}

/**
 * Every setting of `SimulatorSettingsSchema` is an option (so a new setting
 * needs no line here); the ones below are redeclared for their docs, or take
 * values a config file cannot hold (a parsed table, functions, plugins).
 */
export interface SimulatorOptions extends Omit<SimulatorSettingsInput, "limits" | "cors" | "timing" | "outcomes"> {
  /** `virtual`: nothing happens until `clock.advance(ms)`. Default `real`. */
  readonly clock?: "real" | "virtual" | undefined;
  /** Start of virtual time, Unix ms (default: now). */
  readonly startAt?: number | undefined;
  /** Pending → final delay: `2s`, `1s..3s`, `lognormal:2s,0.5`, or a Timing. Default 2 s. */
  readonly timing?: string | Timing | undefined;
  /** Seed of every random choice (ids, delays, failures). Default: random. */
  readonly seed?: number | undefined;
  /** Share of orders that fail (0..1), drawn from the seeded random. Default 0. */
  readonly failureRate?: number | undefined;
  /**
   * The failed outcomes and each one's share of all orders, e.g.
   * `[{ status: 2, share: 0.1 }, { status: 6, share: 0.05, timing: "3s" }]`;
   * replaces failureRate. The rest of the orders succeed.
   */
  readonly outcomes?:
    | readonly { readonly status: number; readonly share: number; readonly timing?: string | Timing | undefined }[]
    | undefined;
  /** Bearer token of the admin API, 16–256 visible ASCII characters; generated (36 characters) when omitted. */
  readonly adminToken?: string | undefined;
  /** `false`: no admin API at all, `/_sim/…` answers 404 like any unknown path. Default true. */
  readonly admin?: boolean | undefined;
  /** The `demo` customer seeded by default; `false` for none. */
  readonly demo?: DemoCustomerOptions | false | undefined;
  /** Further customers, as in the config file. */
  readonly customers?: readonly CustomerInput[] | undefined;
  /** Amount range and currencies (default KES 10–10,000, KES). */
  readonly limits?: Partial<OrderLimits> | undefined;
  /**
   * The provider's dialect the public API and the webhooks speak (a loaded
   * provider profile); default our spec. The admin API always speaks ours.
   */
  readonly provider?: ProviderProfile | undefined;
  /** Replaces the status table (a profile). Must define 0 as pending. */
  readonly statusTable?: StatusTable | readonly StatusDefinition[] | undefined;
  /** How long an idempotency key stays bound, on the simulator clock. Default 24 h. */
  readonly idempotencyRetentionMs?: number | undefined;
  /** Orders kept in full; beyond it the oldest final ones are evicted. Default 300,000. */
  readonly maxOrders?: number | undefined;
  /** Lifetime of tokens from `POST /v1/auth/token`, in seconds. Default 3600. */
  readonly tokenTtlSeconds?: number | undefined;
  /** Extra plugins, built after the default ones. */
  readonly plugins?: readonly SimulatorPluginFactory[] | undefined;
  /** Set false to leave out the built-in plugins (webhooks, scenarios). Default true. */
  readonly defaultPlugins?: boolean | undefined;
  /** Webhook delivery: retry schedule, per-attempt timeout, jitter, intermediate statuses; `false` for none. */
  readonly webhooks?: WebhookPluginOptions | false | undefined;
  /** Failure scenarios: shipped library, files, activations, magic test accounts; `false` for none. */
  readonly scenarios?: ScenarioOptions | false | undefined;
  /** Origins a browser app may call the simulator from (`*`: any). Default: none, CORS off. */
  readonly cors?: readonly string[] | undefined;
  /** Request journal capacity (newest kept). Default 10,000. */
  readonly journalLimit?: number | undefined;
  /**
   * Told of every HTTP request once its response has ended: method, path
   * (credentials in the query redacted), status, duration, customer,
   * idempotency outcome, scenario rules fired. `serve`'s request log.
   */
  readonly onRequest?: ((request: JournalRecord) => void) | undefined;
  /**
   * Where state lives: `memory` (default, this process only) or a Redis URL
   * (`redis://HOST:PORT/DB`) that any number of simulators share. Needs the
   * optional peer `ioredis`.
   */
  readonly store?: string | undefined;
  /**
   * A JSON file holding the whole state across restarts: loaded at start when
   * it exists, written (atomically) by `close()`. Customers it holds keep
   * their balances; the saved run's seed wins over `seed`.
   */
  readonly stateFile?: string | undefined;
  /** Where unexpected errors (bugs, failing jobs) go. Default: stderr. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

export const DEMO_CUSTOMER_ID = "demo";
