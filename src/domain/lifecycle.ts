/**
 * An order's planned future. By default: after one sampled delay the order
 * becomes 20 Success, or — with the seeded failure rate — a failure status
 * (2 Failed by default). Scenarios replace the plan per order.
 *
 * Steps are applied by `createStatusChanges` (status-changes.ts), one job per
 * step on the Scheduler; each step's `afterMs` counts from the previous step.
 */
import { FAILED_STATUS, isFinalStatus, type StatusTable, SUCCESS_STATUS } from "../contract/status-codes.ts";
import type { OutcomePlan } from "./model.ts";
import type { Random } from "./ports.ts";
import { DEFAULT_TIMING, sampleDelay, type Timing } from "./timing.ts";

export interface LifecycleOptions {
  /** Pending → final delay. */
  readonly timing: Timing;
  /** Share of orders that fail, 0..1, drawn from the seeded random. */
  readonly failureRate: number;
  /** The final status of a failing order. */
  readonly failureStatus: number;
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
}

export function isOrderStepPayload(value: unknown): value is OrderStepPayload {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.orderId === "string" &&
    typeof candidate.stepIndex === "number" &&
    Number.isSafeInteger(candidate.stepIndex) &&
    candidate.stepIndex >= 0 &&
    (candidate.customerId === undefined || typeof candidate.customerId === "string")
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
}

/**
 * The default plan for a new order: one step after a sampled delay. Always
 * draws the delay first (fixed timings draw nothing) and then one failure
 * coin, so changing the rate never shifts the rest of a seeded run.
 *
 * @example
 * createDefaultPlan({ timing: { kind: "fixed", ms: 2000 }, failureRate: 0, failureStatus: 2 }, random);
 * // { steps: [{ afterMs: 2000, status: 20 }] }
 */
export function createDefaultPlan(options: LifecycleOptions, random: Random): OutcomePlan {
  const afterMs = sampleDelay(options.timing, random);
  const fails = random.next() < options.failureRate;
  return { steps: [{ afterMs, status: fails ? options.failureStatus : SUCCESS_STATUS }] };
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
