/**
 * An order's planned future. By default: after one sampled delay the order
 * becomes 20 Success, or — with the seeded failure rate — a failure status
 * (2 Failed by default). An outcome mix replaces the failure rate with a
 * share per failed status (Failed 10 %, Timeout 5 %), each with its own
 * timing where it has one. Scenarios replace the plan per order.
 *
 * Steps are applied by `createStatusChanges` (status-changes.ts), one job per
 * step on the Scheduler; each step's `afterMs` counts from the previous step.
 */
import { FAILED_STATUS, isFinalStatus, type StatusTable, SUCCESS_STATUS } from "../contract/status-codes.ts";
import type { OutcomePlan } from "./model.ts";
import type { Random } from "./ports.ts";
import { DEFAULT_TIMING, sampleDelay, type Timing } from "./timing.ts";

/** One failed outcome of the mix: its final status, its share of all orders, and its own timing if it differs. */
export interface OutcomeShare {
  readonly status: number;
  readonly share: number;
  readonly timing?: Timing | undefined;
}

export interface LifecycleOptions {
  /** Pending → final delay. */
  readonly timing: Timing;
  /** Share of orders that fail, 0..1, drawn from the seeded random. */
  readonly failureRate: number;
  /** The final status of a failing order. */
  readonly failureStatus: number;
  /** When given, replaces failureRate and failureStatus: the rest of the orders succeed. */
  readonly outcomes?: readonly OutcomeShare[] | undefined;
}

export const DEFAULT_LIFECYCLE: LifecycleOptions = {
  timing: DEFAULT_TIMING,
  failureRate: 0,
  failureStatus: FAILED_STATUS,
};

/** The Scheduler job type that applies one planned step. */
export const ORDER_STEP_JOB = "order.step";

/** Payload of an `order.step` job: the plan itself stays on the stored order. */
export interface OrderStepPayload {
  readonly orderId: string;
  readonly stepIndex: number;
  /** The order's customer, so a shared store finds the order without its index (absent in older jobs). */
  readonly customerId?: string;
  /** When the step first found no order stored, while it looks again for a placement that lands late. */
  readonly awaitedSince?: number;
}

export function isOrderStepPayload(value: unknown): value is OrderStepPayload {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.orderId === "string" &&
    typeof candidate.stepIndex === "number" &&
    Number.isSafeInteger(candidate.stepIndex) &&
    candidate.stepIndex >= 0 &&
    (candidate.customerId === undefined || typeof candidate.customerId === "string") &&
    (candidate.awaitedSince === undefined || typeof candidate.awaitedSince === "number")
  );
}

/**
 * Throws (a configuration bug) unless the options make sense for the table:
 * a rate in [0, 1] and a failure status that is final and refunds.
 */
export function assertLifecycleOptions(options: LifecycleOptions, table: StatusTable): void {
  if (!(options.failureRate >= 0 && options.failureRate <= 1)) {
    throw new RangeError(`failureRate must be within 0..1, got ${options.failureRate}`);
  }
  if (table.get(options.failureStatus)?.class !== "failed") {
    throw new RangeError(`failureStatus ${options.failureStatus} is not a failed-class status of the table`);
  }
  if (!isFinalStatus(table, SUCCESS_STATUS)) throw new RangeError("the status table must define 20 as a final status");
  const outcomes = options.outcomes ?? [];
  const total = outcomes.reduce((sum, outcome) => sum + outcome.share, 0);
  if (outcomes.some((outcome) => !(outcome.share >= 0)) || total > 1 + SHARE_TOLERANCE) {
    throw new RangeError(`the outcome shares must be >= 0 and add up to at most 1, got ${total}`);
  }
  const notFailed = outcomes.find((outcome) => table.get(outcome.status)?.class !== "failed");
  if (notFailed !== undefined) throw new RangeError(`outcome status ${notFailed.status} is not a failed-class status`);
}

/** Shares written to 3 decimals may add up to a hair over 1. */
export const SHARE_TOLERANCE = 1e-9;

/** The failed outcome a coin in [0, 1) lands on, or undefined for success. */
function failedOutcome(options: LifecycleOptions, coin: number): OutcomeShare | undefined {
  if (options.outcomes === undefined) {
    return coin < options.failureRate ? { status: options.failureStatus, share: options.failureRate } : undefined;
  }
  let upTo = 0;
  for (const outcome of options.outcomes) {
    upTo += outcome.share;
    if (coin < upTo) return outcome;
  }
  return undefined;
}

/**
 * The default plan for a new order: one step after a sampled delay. Always
 * draws the delay first (fixed timings draw nothing) and then one failure
 * coin, so changing the rate never shifts the rest of a seeded run; an
 * outcome with its own timing then draws its delay from that.
 *
 * @example
 * createDefaultPlan({ timing: { kind: "fixed", ms: 2000 }, failureRate: 0, failureStatus: 2 }, random);
 * // { steps: [{ afterMs: 2000, status: 20 }] }
 */
export function createDefaultPlan(options: LifecycleOptions, random: Random): OutcomePlan {
  const afterMs = sampleDelay(options.timing, random);
  const outcome = failedOutcome(options, random.next());
  if (outcome === undefined) return { steps: [{ afterMs, status: SUCCESS_STATUS }] };
  const ownMs = outcome.timing === undefined ? afterMs : sampleDelay(outcome.timing, random);
  return { steps: [{ afterMs: ownMs, status: outcome.status }] };
}

/** Throws (a bug in whoever built the plan) unless every step is well formed. */
export function assertPlan(plan: OutcomePlan): void {
  for (const step of plan.steps) {
    if (!Number.isFinite(step.afterMs) || step.afterMs < 0) {
      throw new RangeError(`a planned step needs afterMs >= 0, got ${step.afterMs}`);
    }
    if (!Number.isSafeInteger(step.status) || step.status < 0) {
      throw new RangeError(`a planned step needs an integer status, got ${step.status}`);
    }
  }
}

/** How many steps at the start of the plan are due at once (applied before placeOrder returns). */
export function countImmediateSteps(plan: OutcomePlan): number {
  let count = 0;
  while (count < plan.steps.length && plan.steps[count]?.afterMs === 0) count++;
  return count;
}
