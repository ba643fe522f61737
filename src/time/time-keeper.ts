/**
 * The embedded clock and scheduler: one job heap (`job-heap.ts`), driven by
 * a real timer (the alarm) or by a virtual clock that moves only when told to.
 */
import type { Clock, Job, JobHandler, Scheduler } from "../domain/ports.ts";
import { JobHeap } from "./job-heap.ts";

/** Due jobs a real-clock drain runs between two turns of the event loop. */
const JOBS_PER_TURN = 64;

export interface TimeKeeper {
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly mode: "real" | "virtual";
  /** Virtual mode only; throws in real mode. */
  advance(ms: number): Promise<void>;
  /**
   * Virtual mode only: moves time to `time` (never back), running what falls
   * due on the way, as `advance` does, in the same queue: a clock shared with
   * other processes brings this one to the time they moved it to.
   */
  advanceTo(time: number): Promise<void>;
  /** Stops real timers; pending jobs are kept but never run. */
  stop(): void;
  /** The jobs not yet run, in run order, and the virtual time (what `--state-file` saves). */
  exportState(): TimeKeeperState;
  /**
   * Schedules saved jobs again and, on a virtual clock, sets the time to the
   * saved one. Job ids generated later never repeat a restored one.
   */
  importState(state: TimeKeeperState): void;
}

export interface TimeKeeperState {
  /** Virtual time, ms since the epoch; null on a real clock. */
  readonly virtualNow: number | null;
  readonly jobs: readonly Job[];
}

/** The number in a generated job id (`job_12`), or 0. */
function generatedNumber(id: string): number {
  // Most ids given are an order's step (`step_…`): no regular expression for those.
  if (!id.startsWith("job_")) return 0;
  const match = /^job_(\d{1,15})$/.exec(id);
  return match === null ? 0 : Number(match[1]);
}

interface TrackedWork {
  readonly horizon: number;
  /** Settles with the work, never rejects. */
  readonly done: Promise<void>;
}

export interface TimeKeeperOptions {
  readonly mode: "real" | "virtual";
  /** Start of virtual time (ms since epoch); defaults to the real time at creation. */
  readonly startAt?: number | undefined;
  /** Real time source, injectable for tests. */
  readonly realNow?: () => number;
  /** Called when a job handler throws, instead of losing the error silently. */
  readonly onError?: ((error: unknown, job: Job) => void) | undefined;
}

/**
 * A clock and a scheduler over one job heap. Virtual mode: time stands still
 * until `advance(ms)`, which runs every job falling due, in due order (ties in
 * scheduling order), each with the clock at its due time — including jobs
 * scheduled inside the window by handlers and by work they left running
 * (`track`): before moving to the next due time, the clock waits for tracked
 * work whose horizon it would pass. Concurrent `advance` calls run one after
 * another. Real mode: one wall-clock timer armed for the earliest job.
 * Scheduling under the id of a job still waiting replaces that job.
 *
 * @example
 * const time = createTimeKeeper({ mode: "virtual", startAt: 0 });
 * time.scheduler.handle("ping", async (job) => console.log("ping at", time.clock.now()));
 * await time.scheduler.schedule({ type: "ping", dueAt: 500, payload: null });
 * await time.advance(1_000); // logs "ping at 500"; time.clock.now() === 1000
 */
export function createTimeKeeper(options: TimeKeeperOptions): TimeKeeper {
  const realNow = options.realNow ?? (() => Date.now());
  const heap = new JobHeap();
  const handlers = new Map<string, JobHandler>();
  let nextId = 0;
  /** Whether a caller has scheduled under an id of the generated form (`job_12`), which a generated id could meet. */
  let generatedFormTaken = false;
  const onError =
    options.onError ??
    ((error: unknown, job: Job) => {
      console.error(`scheduled job ${job.type} ${job.id} failed:`, error);
    });

  const run = (job: Job): Promise<void> => runJob(handlers, onError, job);

  const virtual = options.mode === "virtual" ? createVirtualTime(heap, run, options.startAt ?? realNow()) : undefined;
  const alarm = virtual === undefined ? createAlarm(heap, run, realNow) : undefined;
  const arm = (): void => alarm?.arm();
  const now = virtual === undefined ? () => realNow() : () => virtual.now();

  const scheduler: Scheduler = {
    handle(type, handler) {
      handlers.set(type, handler);
    },
    async schedule({ type, dueAt, payload, id, ifAbsent }) {
      if (ifAbsent === true && id !== undefined && heap.has(id)) return id;
      if (id !== undefined && generatedNumber(id) > 0) generatedFormTaken = true;
      const jobId = id ?? `job_${++nextId}`;
      // A generated id is new unless a caller chose an id of that form: no lookup to replace a job then.
      heap.push({ id: jobId, type, dueAt, payload }, id === undefined && !generatedFormTaken);
      arm();
      return jobId;
    },
    async cancel(jobId) {
      const removed = heap.cancel(jobId);
      arm();
      return removed;
    },
    async size() {
      return heap.size;
    },
    async nextDueAt(type) {
      return type === undefined ? heap.peek()?.dueAt : heap.nextDueOf(type);
    },
    track(work, horizon) {
      // A real clock never waits: due jobs run when their time comes, whatever is in flight.
      virtual?.track(work, horizon);
    },
  };

  return {
    clock: virtual === undefined ? { now } : { now, virtual: true },
    scheduler,
    mode: options.mode,
    advance(ms: number) {
      if (virtual === undefined) return Promise.reject(new Error("advance() needs a virtual clock"));
      if (!Number.isFinite(ms) || ms < 0) return Promise.reject(new RangeError("advance(ms) needs a finite ms >= 0"));
      return virtual.enqueueAdvance(() => virtual.now() + ms);
    },
    advanceTo(time: number) {
      if (virtual === undefined) return Promise.reject(new Error("advanceTo() needs a virtual clock"));
      if (!Number.isFinite(time)) return Promise.reject(new RangeError("advanceTo(time) needs a finite time"));
      return virtual.enqueueAdvance(() => Math.max(virtual.now(), time));
    },
    exportState() {
      return { virtualNow: virtual === undefined ? null : virtual.now(), jobs: heap.jobs() };
    },
    importState(state) {
      if (virtual !== undefined && state.virtualNow !== null) virtual.set(state.virtualNow);
      for (const job of state.jobs) {
        nextId = Math.max(nextId, generatedNumber(job.id));
        heap.push(job);
      }
      arm();
    },
    stop() {
      alarm?.stop();
    },
  };
}

/** Runs a job's handler; a missing handler or a throw goes to `onError`, never out of the scheduler. */
async function runJob(
  handlers: ReadonlyMap<string, JobHandler>,
  onError: (error: unknown, job: Job) => void,
  job: Job,
): Promise<void> {
  const handler = handlers.get(job.type);
  if (handler === undefined) {
    onError(new Error(`no handler for job type ${job.type}`), job);
    return;
  }
  try {
    await handler(job);
  } catch (error) {
    onError(error, job);
  }
}

/** Real mode: the one wall-clock timer, armed for the earliest job. */
interface Alarm {
  /** Keeps the timer armed for the earliest job (after a job is scheduled, cancelled or restored). */
  arm(): void;
  /** Disarms for good: pending jobs are kept but never run. */
  stop(): void;
}

function createAlarm(heap: JobHeap, run: (job: Job) => Promise<void>, realNow: () => number): Alarm {
  let timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (the dueAt it was armed for); meaningful only while `timer` is set. */
  let armedFor = 0;
  let stopped = false;
  let draining = false;

  // Due jobs run in order, giving way to I/O every JOBS_PER_TURN jobs: under load jobs fall due
  // as fast as they run, and a drain that never yielded would hold every request back for as
  // long as it found work.
  async function drainDue(): Promise<void> {
    if (draining || stopped) return;
    draining = true;
    try {
      let ran = 0;
      for (let job = heap.peek(); job !== undefined && job.dueAt <= realNow(); job = heap.peek()) {
        heap.pop();
        await run(job);
        if (++ran % JOBS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      draining = false;
      arm();
    }
  }

  /**
   * A timer already armed for a job no later than the earliest one is kept:
   * under load most new jobs are due after the earliest, and re-creating the
   * timer for each would cost a clear and a set per order. A timer left
   * armed for a job that was cancelled meanwhile fires, finds nothing due,
   * and re-arms.
   */
  function arm(): void {
    if (stopped || draining) return;
    const next = heap.peek();
    if (timer !== undefined) {
      if (next !== undefined && armedFor <= next.dueAt) return;
      clearTimeout(timer);
      timer = undefined;
    }
    if (next === undefined) return;
    // setTimeout caps at ~24.8 days; a later job simply re-arms.
    const delay = Math.min(Math.max(0, next.dueAt - realNow()), 2 ** 31 - 1);
    armedFor = next.dueAt;
    timer = setTimeout(() => {
      timer = undefined;
      void drainDue();
    }, delay);
    timer.unref?.();
  }

  return {
    arm,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Virtual mode: the time, which moves only when advanced, and the work it waits for on the way. */
interface VirtualTime {
  now(): number;
  /** Sets the time outright (a restored state file). */
  set(time: number): void;
  /** Concurrent advances run one after another, each from where the previous one stopped. */
  enqueueAdvance(targetOf: () => number): Promise<void>;
  /** Work a handler left running, which may schedule a job due at `horizon` or later. */
  track(work: Promise<unknown>, horizon: number): void;
}

function createVirtualTime(heap: JobHeap, run: (job: Job) => Promise<void>, startAt: number): VirtualTime {
  let virtualNow = startAt;
  let advancing: Promise<unknown> = Promise.resolve();
  /** Work left running by handlers, each with the earliest time it may schedule a job. */
  const tracked = new Set<TrackedWork>();

  /** Tracked work that may still schedule a job due at or before `time`. */
  function holdingUp(time: number): Promise<void>[] {
    const found: Promise<void>[] = [];
    for (const work of tracked) if (work.horizon <= time) found.push(work.done);
    return found;
  }

  async function advanceNow(target: number): Promise<void> {
    for (;;) {
      const next = heap.peek();
      const until = next !== undefined && next.dueAt <= target ? Math.max(next.dueAt, virtualNow) : target;
      // Work still out may schedule something before `until` (a retry): it finishes first, then look again.
      const waiting = holdingUp(until);
      if (waiting.length > 0) {
        await Promise.race(waiting);
        continue;
      }
      if (next === undefined || next.dueAt > target) break;
      virtualNow = until;
      // Every job due at this instant, in order; each handler only starts its slow work, so
      // the work of jobs due at one instant runs concurrently.
      for (let job = heap.peek(); job !== undefined && job.dueAt <= virtualNow; job = heap.peek()) {
        heap.pop();
        await run(job);
      }
    }
    virtualNow = target;
  }

  return {
    now: () => virtualNow,
    set(time) {
      virtualNow = time;
    },
    enqueueAdvance(targetOf) {
      const advanced = advancing.then(() => advanceNow(targetOf()));
      advancing = advanced.catch(() => undefined);
      return advanced;
    },
    track(work, horizon) {
      if (horizon === Number.POSITIVE_INFINITY) return;
      const entry: TrackedWork = {
        horizon,
        done: work.then(
          () => undefined,
          () => undefined,
        ),
      };
      tracked.add(entry);
      void entry.done.then(() => tracked.delete(entry));
    },
  };
}
