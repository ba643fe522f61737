/**
 * A contract run's settings, normalised once: every default of
 * `airtime-harness contract` in one table, and one frozen object built from
 * the caller's options that the rest of the run reads as it is (like
 * fast-check's qualified parameters). No other file of the harness falls
 * back to a default, so no default can be written twice with two values.
 */
import { randomInt } from "node:crypto";
import type { ContractOptions } from "./contract-options.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "./http-client.ts";
import type { Strictness } from "./strictness.ts";

/** Every default of a contract run; `--help` and the guide quote these. */
export const CONTRACT_DEFAULTS = Object.freeze({
  profile: "strict" as Strictness,
  /** Runs per property. */
  runs: 100,
  /**
   * Model runs against a real clock when no run count is given: each run
   * waits for every order it placed to become final, so a default run lasts
   * about 25 times the target's slowest final, not 100 times.
   */
  realClockModelRuns: 25,
  /** Longest command sequence of a model run. */
  maxCommands: 20,
  /**
   * The in-process simulator's pending → final delay, ms; on a virtual clock
   * whose target's timing is unknown, the scale of the model's time steps.
   */
  timingMs: 2000,
  /** Wall ms an order may take to become final against a real clock. */
  finalTimeoutMs: 30_000,
  /** Wall ms to wait for a webhook once the order is final. */
  webhookTimeoutMs: 10_000,
  /** The in-process simulator has delivered by the time its clock call returns: a short wait suffices. */
  inProcessWebhookTimeoutMs: 2000,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  /** Longest single wait of an "advance time" step against a real clock, ms. */
  maxWaitMs: 500,
  /** Interval between lookups while polling for a final status, wall ms. */
  pollMs: 100,
  /** How long after the newest order went final the late audit reads every order again, ms; 0 is off. */
  lateAuditMs: 5000,
  /** Most wall ms spent shrinking one failure. */
  shrinkTimeMs: 10_000,
  /** Failed checks after which the run stops: none given, it never stops early. */
  maxFailures: Number.POSITIVE_INFINITY,
});

/** The options with every default filled in; what is still optional has no default (a budget, a target …). */
export type ContractSettings = Readonly<
  ContractOptions & {
    readonly profile: Strictness;
    readonly seed: number;
    readonly runs: number;
    /** Model runs against a real clock: the runs given, else `realClockModelRuns`. */
    readonly realClockModelRuns: number;
    /**
     * The lifecycle timing the run knows: the one given, else (in process)
     * the simulator's default; undefined for a remote target without one.
     */
    readonly timingMs: number | undefined;
    readonly maxCommands: number;
    readonly maxFailures: number;
    readonly finalTimeoutMs: number;
    readonly webhookTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxWaitMs: number;
    readonly pollMs: number;
    readonly lateAuditMs: number;
    readonly shrinkTimeMs: number;
    readonly validateWithPrism: boolean;
    /** Where Prism is looked for when this package's own copy is not there: the working directory by default. */
    readonly prismCwd: string;
    readonly sharedAccount: boolean;
    readonly requireCoverage: boolean;
  }
>;

/**
 * @example
 * const settings = contractSettings({ runs: 50 });
 * settings.timingMs; // 2000: the in-process simulator's
 * settings.maxFailures; // Infinity
 */
export function contractSettings(options: ContractOptions): ContractSettings {
  const inProcess = options.target === undefined;
  const defaults = CONTRACT_DEFAULTS;
  return Object.freeze({
    ...options,
    profile: options.profile ?? defaults.profile,
    seed: options.seed ?? randomInt(2 ** 31),
    runs: options.runs ?? defaults.runs,
    realClockModelRuns: options.runs ?? defaults.realClockModelRuns,
    timingMs: options.timingMs ?? (inProcess ? defaults.timingMs : undefined),
    maxCommands: options.maxCommands ?? defaults.maxCommands,
    maxFailures: options.maxFailures ?? defaults.maxFailures,
    finalTimeoutMs: options.finalTimeoutMs ?? defaults.finalTimeoutMs,
    webhookTimeoutMs:
      options.webhookTimeoutMs ?? (inProcess ? defaults.inProcessWebhookTimeoutMs : defaults.webhookTimeoutMs),
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
    maxWaitMs: options.maxWaitMs ?? defaults.maxWaitMs,
    pollMs: defaults.pollMs,
    lateAuditMs: options.lateAuditMs ?? defaults.lateAuditMs,
    shrinkTimeMs: options.shrinkTimeMs ?? defaults.shrinkTimeMs,
    validateWithPrism: options.validateWithPrism === true,
    prismCwd: options.prismCwd ?? process.cwd(),
    sharedAccount: options.sharedAccount === true,
    requireCoverage: options.requireCoverage === true,
  });
}

/** The URL the target posts webhooks to: `webhookUrl` when given (a tunnel, a proxy), else the receiver's own. */
export function subscriptionUrl(settings: ContractSettings, receiverUrl: string): string {
  return settings.webhookUrl ?? receiverUrl;
}

/**
 * The scale of a model run's time steps on a virtual clock: the run's
 * lifecycle timing, or, where the target's is unknown, the default timing.
 */
export function clockScaleMs(timingMs: number | undefined): number {
  return timingMs ?? CONTRACT_DEFAULTS.timingMs;
}
