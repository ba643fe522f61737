/**
 * Webhook attempts as scheduler jobs (`webhook.attempt`, a plain JSON
 * payload), so a persistent scheduler keeps them across restarts, and the
 * placement that says where those jobs run: on this process's own scheduler,
 * or on one several processes claim leased jobs from. Each difference
 * between the two is a member of the placement, named for why it differs,
 * instead of a branch in every step of the dispatcher (announce, attempt,
 * record).
 */
import type { Clock, JobPlacement, Scheduler } from "../domain/ports.ts";
import type { AttemptJobPayload, RetryPolicy } from "./delivery-transitions.ts";
import type { Delivery, DeliveryStore } from "./ports.ts";

export const WEBHOOK_ATTEMPT_JOB = "webhook.attempt";

/** Schedules one attempt's job. `ifAbsent`: leaves a job of that id that is still waiting or running alone. */
export async function scheduleAttempt(
  scheduler: Scheduler,
  job: { readonly id: string; readonly dueAt: number; readonly ifAbsent?: boolean } & AttemptJobPayload,
): Promise<void> {
  const { id, dueAt, deliveryId, scheduleIndex, ifAbsent = false } = job;
  const payload: AttemptJobPayload = { deliveryId, scheduleIndex };
  await scheduler.schedule({ id, type: WEBHOOK_ATTEMPT_JOB, dueAt, payload, ...(ifAbsent ? { ifAbsent } : {}) });
}

/**
 * The earliest simulator time an attempt due at `dueAt` can schedule
 * anything: its retry (the shortest jittered delay; Retry-After only
 * lengthens it), or at once when a stale follow-up may be sent after it.
 */
export function horizonOf(delivery: Delivery, dueAt: number, scheduleIndex: number, retry: RetryPolicy): number {
  if (delivery.followUp !== undefined) return dueAt;
  const delay = retry.schedule[scheduleIndex + 1];
  return delay === undefined ? Number.POSITIVE_INFINITY : dueAt + Math.floor(delay * (1 - retry.jitter));
}

/** A claimed attempt job, as a closing process hands it back. */
export interface ClaimedAttempt extends AttemptJobPayload {
  readonly jobId: string;
  readonly dueAt: number;
}

/**
 * Where attempts run. Local: this process's own scheduler, which a job
 * must not hold up (it only starts the request). Shared: a scheduler
 * several processes claim leased jobs from; a job holds its lease until its
 * attempt is recorded, and a closing process hands the attempts it will not
 * make back to the others.
 */
export interface AttemptPlacement {
  /** Runs a claimed job's attempt: shared, the job awaits it; local, the scheduler moves on while the request is out. */
  runJob(work: Promise<unknown>, horizon: number): Promise<void>;
  /** A claimed attempt this closing process will not make: shared, another process makes it; local, it stays pending. */
  giveUp(claimed: ClaimedAttempt): Promise<void>;
  /** A closing process still schedules retries: shared, another process makes them. */
  readonly retriesWhileClosing: boolean;
  /**
   * A repeated announcement may find a delivery whose first job was never
   * scheduled (a process died between the two): shared, it schedules the job
   * unless it exists. Locally the process that stored it scheduled it.
   */
  readonly mayMissFirstJob: boolean;
  /** A stale follow-up is a job like any other (shared: a process killed now leaves it to a survivor); local, it runs at once. */
  readonly followUpAsJob: boolean;
  /** What a closed dispatcher left: shared, only what this process handed back; local, every pending delivery. */
  undelivered(): Promise<number>;
}

export function createAttemptPlacement(
  jobs: JobPlacement | undefined,
  ports: { readonly scheduler: Scheduler; readonly clock: Clock; readonly deliveries: DeliveryStore },
): AttemptPlacement {
  jobs?.share(WEBHOOK_ATTEMPT_JOB);
  return jobs?.kind === "shared" ? sharedPlacement(ports) : localPlacement(ports);
}

function localPlacement({ scheduler, deliveries }: { scheduler: Scheduler; deliveries: DeliveryStore }) {
  return {
    async runJob(work: Promise<unknown>, horizon: number) {
      scheduler.track(work, horizon);
    },
    giveUp: async () => undefined,
    retriesWhileClosing: false,
    mayMissFirstJob: false,
    followUpAsJob: false,
    undelivered: async () => (await deliveries.list({ state: "pending" })).length,
  } satisfies AttemptPlacement;
}

function sharedPlacement({ scheduler, clock }: { scheduler: Scheduler; clock: Clock }): AttemptPlacement {
  let handedBack = 0;
  return {
    async runJob(work) {
      await work;
    },
    /**
     * The job goes back to the shared scheduler. Its due time moves on by at
     * least 1 ms: the scheduler then sees a job scheduled again, not the one
     * claimed, and keeps it when the claim completes.
     */
    async giveUp({ jobId, dueAt, deliveryId, scheduleIndex }) {
      handedBack += 1;
      await scheduleAttempt(scheduler, {
        id: jobId,
        dueAt: Math.max(clock.now(), dueAt + 1),
        deliveryId,
        scheduleIndex,
      });
    },
    retriesWhileClosing: true,
    mayMissFirstJob: true,
    followUpAsJob: true,
    undelivered: async () => handedBack,
  };
}
