/**
 * The probe's settings, normalised once: its defaults in one table, and one
 * frozen object the probe reads as it is. The budget's default is a rule,
 * not a number — a few orders of the smallest amount the target takes,
 * known only once the target took one — so it is applied here, by
 * `probeBudgetKes`, and nowhere else.
 */
import { toRecipient } from "../harness/accounts.ts";
import type { ProbeSettings } from "./probe-target.ts";

/** Every default of a probe. */
const PROBE_DEFAULTS = Object.freeze({
  /** Without a budget, the probe spends at most this many orders of the smallest amount the target takes. */
  budgetOrders: 3,
});

/** What a caller of the probe gives; `probeSettings` fills in the rest. */
interface ProbeInput {
  readonly token: string;
  readonly otherToken?: string;
  /** The recipient of every order; its operator names the order's service. */
  readonly account: string;
  /** KES; default `budgetOrders` orders of the smallest amount the target takes. */
  readonly budget?: number;
  /** How long an order may take to become final, ms. */
  readonly timeoutMs: number;
}

/**
 * @example
 * const settings = probeSettings({ token, account: "0712000101", timeoutMs: 10_000 });
 * settings.service; // "safaricom"
 */
export function probeSettings(input: ProbeInput): ProbeSettings {
  return Object.freeze({
    token: input.token,
    ...(input.otherToken === undefined ? {} : { otherToken: input.otherToken }),
    account: input.account,
    service: toRecipient(input.account)?.service,
    ...(input.budget === undefined ? {} : { budget: input.budget }),
    timeoutMs: input.timeoutMs,
  });
}

/** The most the probe may spend, once the smallest amount the target takes is known. */
export function probeBudgetKes(settings: ProbeSettings, smallestAmount: number): number {
  return settings.budget ?? smallestAmount * PROBE_DEFAULTS.budgetOrders;
}
