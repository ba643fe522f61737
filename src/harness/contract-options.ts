/**
 * Options of a contract run — the programmatic face of
 * `airtime-harness contract`.
 */
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import type { BodyMapping } from "./body-mapping.ts";
import type { Profile } from "./profiles.ts";
import type { PropertyName } from "./property.ts";

export interface ContractOptions {
  /** The deployment's base URL; omitted → an in-process simulator on a virtual clock. */
  readonly target?: string;
  /** Bearer token of the customer the harness acts as (required with `target`). */
  readonly token?: string;
  /** A second customer's token, for `customer_isolation`. */
  readonly otherToken?: string;
  /** Admin API base URL and token: sim-only powers (fresh customers, clock, forced outcomes). */
  readonly adminUrl?: string;
  readonly adminToken?: string;

  /** In-process only: extra simulator options, e.g. plugins. */
  readonly simulator?: SimulatorOptions;
  /**
   * The fixed pending → final delay, ms. In-process: the simulator's (default
   * 2000). Remote with admin powers on a virtual clock: the target's, when
   * known, which makes statuses predictable.
   */
  readonly timingMs?: number;

  /** Only these checks (default: all). */
  readonly checks?: readonly string[];
  readonly excludeChecks?: readonly string[];
  /** Only these properties (default: all that apply). Required with `path`. */
  readonly properties?: readonly PropertyName[];

  /** Runs per property. Default 100 (model runs against a real clock: 25). */
  readonly runs?: number;
  /** fast-check seed. Default: random. */
  readonly seed?: number;
  /** Replays one counterexample (`--path` from a failure report). */
  readonly path?: string;
  /** Longest command sequence of a model run. Default 20. */
  readonly maxCommands?: number;
  /** Stop once this many checks have failed (default: look for failures of every check). */
  readonly maxFailures?: number;

  /** Most KES the run may spend, retries included; never exceeded. */
  readonly budget?: number;
  /** The only recipient numbers the harness may use. */
  readonly accounts?: readonly string[];
  /** Where `accounts` came from, for the replay command. */
  readonly accountsFile?: string;

  /** `HOST:PORT` for the webhook receiver (a remote deployment must be able to reach it). */
  readonly webhookListen?: string;
  /** The `whsec_…` secret the deployment signs with. */
  readonly webhookSecret?: string;
  /**
   * The URL the target posts webhooks to, when it differs from the receiver's
   * own (a tunnel, a proxy); used when the harness subscribes the customers it
   * creates. Default: the receiver's URL.
   */
  readonly webhookUrl?: string;

  /** Wall ms an order may take to become final against a real clock. Default 30,000. */
  readonly finalTimeoutMs?: number;
  /** Wall ms to wait for a webhook once the order is final. Default 10,000. */
  readonly webhookTimeoutMs?: number;
  /** Per-request timeout, ms. Default 10,000. */
  readonly requestTimeoutMs?: number;
  /** Longest single wait of an "advance time" step against a real clock, ms. Default 500. */
  readonly maxWaitMs?: number;

  /**
   * The account is shared with something else that moves its balance: judge
   * the balance by a lower bound only. Default false: the harness is the
   * account's only user, so after settling the balance must be exact.
   */
  readonly sharedAccount?: boolean;
  /** A check that ran but never met a class of case it is about fails the run (for CI). */
  readonly requireCoverage?: boolean;
  /** Most wall ms spent shrinking one failure. Default 10,000. */
  readonly shrinkTimeMs?: number;
  /** `strict` (default): everything our spec decides; `interface`: only what the interface document states. */
  readonly profile?: Profile;
  /** Where the target keeps ids, statuses, references and the balance (JSON pointers); default our spec's shape. */
  readonly mapping?: BodyMapping;
  /** Where `mapping` came from, for the replay command. */
  readonly mappingFile?: string;
  /** The target's own OpenAPI document (YAML or JSON): response bodies are judged against it. */
  readonly specFile?: string;

  /** Route model traffic through `prism proxy spec/openapi.yaml <target> --errors`. */
  readonly validateWithPrism?: boolean;
  /** The project directory holding `node_modules/.bin/prism` and `spec/openapi.yaml`. Default: cwd. */
  readonly prismCwd?: string;

  /** Called at the start of every run. */
  readonly onProgress?: (event: ProgressEvent) => void;
}

export interface ProgressEvent {
  readonly property: PropertyName;
  /** Runs started so far for this property (shrinking included). */
  readonly run: number;
  readonly runs: number;
  readonly phase: "search" | "shrink-or-retry" | "replay";
}

export const DEFAULT_RUNS = 100;
/**
 * Model runs against a real clock when --runs is not given: each run waits
 * for every order it placed to become final, so a default run lasts about
 * 25 times the target's slowest final, not 100 times.
 */
export const DEFAULT_REAL_CLOCK_MODEL_RUNS = 25;
export const DEFAULT_MAX_COMMANDS = 20;
export const DEFAULT_TIMING_MS = 2000;
export const DEFAULT_FINAL_TIMEOUT_MS = 30_000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_SHRINK_TIME_MS = 10_000;
