/**
 * A comparison's settings, normalised once: every default `compare` has, in
 * one table, and one frozen object built from the caller's input that the
 * rest of the comparison reads as it is (like fast-check's qualified
 * parameters). No other file of the comparison falls back to a default.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import type { WebhookRecorder } from "./observe-webhooks.ts";
import type { ObserveProgress } from "./observe.ts";
import type { CompareSafety } from "./safety.ts";

/** What a caller of `runCompare` gives; `compareSettings` fills in the rest. */
export interface CompareInput {
  readonly target: string;
  readonly token: string;
  readonly provider?: ProviderProfile | undefined;
  readonly seed: number;
  readonly runs: number;
  /** How long a placed order may stay pending before it counts as unsettled. */
  readonly settleMs: number;
  /** Settings of the reference simulator (a config's timing, failure rate …); default our simulator's. */
  readonly reference?: SimulatorOptions | undefined;
  /**
   * The receiver the target posts its webhooks to (`--webhook-listen`); the
   * reference simulator then posts to one of its own. Without it neither
   * side's webhooks are observed.
   */
  readonly targetWebhooks?: WebhookRecorder | undefined;
  /** Most time to wait for a final status's webhook once a side's orders are final (default 10 s, `COMPARE_DEFAULTS`). */
  readonly webhookTimeoutMs?: number | undefined;
  /** How long a receiver must stay quiet before the repeats count as over (default 500 ms). */
  readonly webhookQuietMs?: number | undefined;
  /** The safety options `contract` has too: spend, recipients, a second customer, request timeout. */
  readonly safety?: CompareSafety | undefined;
  /** Progress of the target side (the slower one against a real deployment). */
  readonly onProgress?: ((event: ObserveProgress) => void) | undefined;
}

/** Every default of a comparison. */
export const COMPARE_DEFAULTS = Object.freeze({
  /** Most time to wait for a final status's webhook once a side's orders are final. */
  webhookTimeoutMs: 10_000,
  /** How long a receiver must stay quiet before the repeats count as over. */
  webhookQuietMs: 500,
  /** Per request; a target that does not answer in time ends the comparison. */
  requestTimeoutMs: 10_000,
  /** The lookup interval while orders settle: the resolution of the measured times. */
  pollMs: 20,
  /** Recipient numbers orders go to: none given, every order goes to the default account. */
  accounts: Object.freeze([]) as readonly string[],
});

export type CompareSettings = Readonly<
  CompareInput & {
    readonly webhookTimeoutMs: number;
    readonly webhookQuietMs: number;
    readonly requestTimeoutMs: number;
    readonly pollMs: number;
  }
>;

/**
 * @example
 * const settings = compareSettings({ target, token, seed: 1, runs: 20, settleMs: 30_000 });
 * settings.webhookTimeoutMs; // 10000
 */
export function compareSettings(input: CompareInput): CompareSettings {
  return Object.freeze({
    ...input,
    webhookTimeoutMs: input.webhookTimeoutMs ?? COMPARE_DEFAULTS.webhookTimeoutMs,
    webhookQuietMs: input.webhookQuietMs ?? COMPARE_DEFAULTS.webhookQuietMs,
    requestTimeoutMs: input.safety?.requestTimeoutMs ?? COMPARE_DEFAULTS.requestTimeoutMs,
    pollMs: COMPARE_DEFAULTS.pollMs,
  });
}
