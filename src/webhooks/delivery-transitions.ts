/**
 * What one attempt's result does to a delivery: pure functions over the
 * delivery record, so the rules (delivered is final, 410 disables, a
 * failure schedules the next slot or exhausts the schedule, a manual
 * redelivery never starts a schedule, when the next attempt is due) read in
 * one place.
 */
import type { AttemptOutcome, AttemptTrigger, Delivery } from "./ports.ts";
import type { PostResult } from "./post-webhook.ts";

/** The retry schedule, ms, and the relative jitter on each delay. */
export interface RetryPolicy {
  readonly schedule: readonly number[];
  readonly jitter: number;
}

/**
 * The delay with jitter: `delay × (1 ± jitter)`, drawn from the seeded random
 * source so runs replay. A zero delay stays zero (the first attempt is at once).
 */
export function withJitter(delayMs: number, jitter: number, random: () => number): number {
  if (delayMs === 0 || jitter === 0) return delayMs;
  return Math.max(0, Math.round(delayMs * (1 + jitter * (2 * random() - 1))));
}

/**
 * The wait before the slot after `scheduleIndex`, once an attempt answered
 * `result`: the schedule's delay with jitter, longer when the receiver's
 * `Retry-After` asks it (never shorter). Undefined when no slot follows, or
 * for a manual redelivery (`scheduleIndex` null), which starts no schedule.
 */
export function retryDelay(
  retry: RetryPolicy,
  scheduleIndex: number | null,
  result: PostResult,
  random: () => number,
): number | undefined {
  if (scheduleIndex === null) return undefined;
  const delay = retry.schedule[scheduleIndex + 1];
  if (delay === undefined) return undefined;
  const jittered = withJitter(delay, retry.jitter, random);
  const asked = result.kind === "response" ? result.retryAfterMs : undefined;
  return asked !== undefined && asked > jittered ? asked : jittered;
}

/** The scheduler job payload of one attempt: plain JSON. */
export interface AttemptJobPayload {
  readonly deliveryId: string;
  readonly scheduleIndex: number;
}

export function isAttemptJobPayload(value: unknown): value is AttemptJobPayload {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.deliveryId === "string" && Number.isInteger(record.scheduleIndex);
}

/** Which chain an attempt belongs to, and so what its failure schedules. */
export interface AttemptContext {
  readonly trigger: AttemptTrigger;
  readonly scheduledAt: number;
  /** The schedule slot this attempt fills; null for a manual redelivery. */
  readonly scheduleIndex: number | null;
  /** The job id the delivery expected for this slot. */
  readonly jobId: string | null;
}

/**
 * The earliest simulator time an attempt due at `dueAt` can schedule
 * anything: its retry (the shortest jittered delay; Retry-After only
 * lengthens it), or at once when a stale follow-up may be sent after it.
 */
export function horizonOf(
  delivery: Pick<Delivery, "followUp">,
  dueAt: number,
  scheduleIndex: number,
  retry: RetryPolicy,
): number {
  if (delivery.followUp !== undefined) return dueAt;
  const delay = retry.schedule[scheduleIndex + 1];
  return delay === undefined ? Number.POSITIVE_INFINITY : dueAt + Math.floor(delay * (1 - retry.jitter));
}

export const jobIdFor = (deliveryId: string, scheduleIndex: number) => `${deliveryId}/${scheduleIndex}`;

/**
 * The delivery after an attempt with `outcome` that finished at `finishedAt`
 * (simulator clock). `retryDelay` is the wait before the next scheduled slot,
 * undefined when the schedule is used up.
 */
export function nextState(
  current: Delivery,
  context: AttemptContext,
  outcome: AttemptOutcome,
  finishedAt: number,
  retryDelay: number | undefined,
  scheduleLength: number,
): Delivery {
  const counted = { ...current, attemptCount: current.attemptCount + 1 };
  // Delivered is final: a late failure of a parallel attempt changes nothing.
  if (current.state === "delivered") return counted;
  const stop = { nextAttemptAt: null, nextJobId: null };
  switch (outcome) {
    case "delivered": {
      const { reason: _cleared, ...rest } = counted;
      return { ...rest, ...stop, state: "delivered", deliveredAt: finishedAt };
    }
    case "gone":
      return { ...counted, ...stop, state: "disabled", reason: "the endpoint answered 410 Gone" };
    case "failed": {
      const ownsChain = current.state === "pending" && context.jobId !== null && current.nextJobId === context.jobId;
      if (!ownsChain) {
        // A manual redelivery that failed leaves a running schedule alone.
        return current.state === "pending" ? counted : { ...counted, state: "failed", reason: "redelivery failed" };
      }
      const index = (context.scheduleIndex ?? 0) + 1;
      if (retryDelay === undefined) {
        return {
          ...counted,
          ...stop,
          state: "failed",
          reason: `no 2xx after ${scheduleLength} scheduled attempts`,
        };
      }
      return {
        ...counted,
        scheduleIndex: index,
        nextAttemptAt: finishedAt + retryDelay,
        nextJobId: jobIdFor(current.id, index),
      };
    }
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown attempt outcome ${String(unreachable)}`);
    }
  }
}

/**
 * The retry `nextState` schedules when the attempt fails and the delivery
 * still waits for this attempt's job: the next slot's job, due `retryDelay`
 * after the attempt finished. Undefined when no retry can follow.
 */
export function plannedRetry(
  deliveryId: string,
  context: AttemptContext,
  outcome: AttemptOutcome,
  finishedAt: number,
  retryDelay: number | undefined,
): { readonly jobId: string; readonly scheduleIndex: number; readonly dueAt: number } | undefined {
  if (outcome !== "failed" || retryDelay === undefined || context.jobId === null || context.scheduleIndex === null) {
    return undefined;
  }
  const scheduleIndex = context.scheduleIndex + 1;
  return { jobId: jobIdFor(deliveryId, scheduleIndex), scheduleIndex, dueAt: finishedAt + retryDelay };
}

export function outcomeOf(result: PostResult): AttemptOutcome {
  if (result.kind === "error") return "failed";
  if (result.status >= 200 && result.status < 300) return "delivered";
  return result.status === 410 ? "gone" : "failed";
}
