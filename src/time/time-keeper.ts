/**
 * The embedded clock and scheduler: one job heap (`JobHeap`, below), driven by
 * a real timer (the alarm) or by a virtual clock that moves only when told to.
 */
import type { Clock, Job, JobHandler, Scheduler } from "../domain/ports.ts";

/**
 * The time keeper's settings, normalised once: its defaults in one place,
 * and one frozen settings object the time keeper reads as it is.
 */

export interface TimeKeeperOptions {
  readonly mode: "real" | "virtual";
  /** Start of virtual time (ms since epoch); defaults to the real time at creation. */
  readonly startAt?: number | undefined;
  /** Real time source, injectable for tests (default `Date.now`). */
  readonly realNow?: () => number;
  /** Called when a job handler throws, instead of losing the error silently (default: console.error). */
  readonly onError?: ((error: unknown, job: Job) => void) | undefined;
}

function logJobError(error: unknown, job: Job): void {
  console.error(`scheduled job ${job.type} ${job.id} failed:`, error);
}

/**
 * @example
 * timeKeeperSettings({ mode: "virtual", realNow: () => 5 }).virtualStartAt; // 5
 */
function timeKeeperSettings(options: TimeKeeperOptions) {
  const realNow = options.realNow ?? (() => Date.now());
  return Object.freeze({
    mode: options.mode,
    realNow,
    /** Where virtual time starts; undefined for a real clock, which follows `realNow`. */
    virtualStartAt: options.mode === "virtual" ? (options.startAt ?? realNow()) : undefined,
    onError: options.onError ?? logJobError,
  });
}

// The job heap is the part that must stay fast with 100,000 jobs waiting,
// and it knows nothing of clocks, timers or handlers.

interface HeapEntry {
  readonly job: Job;
  /** `job.dueAt`, kept here too: comparisons then read one object, not two (it matters with 100,000 jobs). */
  readonly dueAt: number;
  readonly seq: number;
  /** Set by cancel; the entry is dropped when it reaches the top. */
  cancelled: boolean;
}

/** A queue drops the slots of run entries once this many have gathered at its front. */
const LANE_COMPACT_AT = 1024;

/**
 * Jobs ordered by (dueAt, insertion order), so jobs due at the same time run
 * first-scheduled-first. Most jobs are scheduled a fixed delay after "now"
 * (every order's step, every retry after the same backoff), so they arrive
 * already in run order: those go to the back of a queue, in O(1), and only a
 * job due before the queue's last one goes to a binary min-heap, in
 * O(log n). The next job is the earlier of the queue's front and the heap's
 * top, so the run order is the one a heap alone would give. Cancelling marks
 * the entry (found through the id index in O(1)) instead of searching;
 * marked entries are dropped when they surface.
 */
class JobHeap {
  private readonly items: HeapEntry[] = [];
  /** Entries in run order, from `laneHead` on. */
  private lane: (HeapEntry | undefined)[] = [];
  private laneHead = 0;
  private readonly byId = new Map<string, HeapEntry>();
  private seq = 0;

  /** `fresh`: the caller knows no live job has this id, so there is nothing to replace. */
  push(job: Job, fresh = false): void {
    // Scheduling again under a live id replaces the earlier job.
    if (!fresh) this.cancel(job.id);
    const entry: HeapEntry = { job, dueAt: job.dueAt, seq: this.seq++, cancelled: false };
    this.byId.set(job.id, entry);
    const last = this.lane.length > this.laneHead ? this.lane[this.lane.length - 1] : undefined;
    if (last === undefined || last.dueAt <= entry.dueAt) {
      this.lane.push(entry);
      return;
    }
    this.items.push(entry);
    this.up(this.items.length - 1);
  }

  cancel(id: string): boolean {
    const entry = this.byId.get(id);
    if (entry === undefined) return false;
    entry.cancelled = true;
    this.byId.delete(id);
    return true;
  }

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The live jobs in run order. */
  jobs(): Job[] {
    return [...this.byId.values()].sort((x, y) => (runsBefore(x, y) ? -1 : 1)).map((entry) => entry.job);
  }

  /**
   * When the earliest live job of `type` is due. The queue is in run order,
   * so its first job of the type is its earliest, found without looking
   * further; the heap, which holds only the few jobs that came out of order,
   * is looked through whole.
   */
  nextDueOf(type: string): number | undefined {
    let earliest: number | undefined;
    for (let i = this.laneHead; i < this.lane.length; i++) {
      const entry = this.lane[i];
      if (entry !== undefined && !entry.cancelled && entry.job.type === type) {
        earliest = entry.dueAt;
        break;
      }
    }
    for (const entry of this.items) {
      if (!entry.cancelled && entry.job.type === type && (earliest === undefined || entry.dueAt < earliest)) {
        earliest = entry.dueAt;
      }
    }
    return earliest;
  }

  /** The earliest live job without removing it. */
  peek(): Job | undefined {
    return this.next()?.job;
  }

  pop(): Job | undefined {
    const next = this.next();
    if (next === undefined) return undefined;
    if (next === this.items[0]) this.removeTop();
    else this.shiftLane();
    this.byId.delete(next.job.id);
    return next.job;
  }

  /** The earliest live entry: the queue's front or the heap's top. */
  private next(): HeapEntry | undefined {
    this.dropCancelledTop();
    let front = this.lane[this.laneHead];
    while (front?.cancelled === true) {
      this.shiftLane();
      front = this.lane[this.laneHead];
    }
    const top = this.items[0];
    if (front === undefined) return top;
    return top !== undefined && runsBefore(top, front) ? top : front;
  }

  private shiftLane(): void {
    this.lane[this.laneHead++] = undefined;
    if (this.laneHead === this.lane.length) {
      this.lane = [];
      this.laneHead = 0;
    } else if (this.laneHead >= LANE_COMPACT_AT && this.laneHead * 2 >= this.lane.length) {
      this.lane = this.lane.slice(this.laneHead);
      this.laneHead = 0;
    }
  }

  private dropCancelledTop(): void {
    for (let top = this.items[0]; top?.cancelled === true; top = this.items[0]) this.removeTop();
  }

  private removeTop(): void {
    const last = this.items.pop();
    if (last !== undefined && this.items.length > 0) {
      this.items[0] = last;
      this.down(0);
    }
  }

  // Sifting moves a hole rather than swapping pairs: half the writes.
  private up(index: number): void {
    const items = this.items;
    const entry = items[index] as HeapEntry;
    let i = index;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = items[parentIndex] as HeapEntry;
      if (!runsBefore(entry, parent)) break;
      items[i] = parent;
      i = parentIndex;
    }
    items[i] = entry;
  }

  private down(index: number): void {
    const items = this.items;
    const n = items.length;
    const entry = items[index] as HeapEntry;
    let i = index;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && runsBefore(items[right] as HeapEntry, items[child] as HeapEntry)) child = right;
      const first = items[child] as HeapEntry;
      if (!runsBefore(first, entry)) break;
      items[i] = first;
      i = child;
    }
    items[i] = entry;
  }
}

/** The heap's order: due time, then scheduling order. Strict and total, so the run order never depends on the heap's shape. */
function runsBefore(x: HeapEntry, y: HeapEntry): boolean {
  return x.dueAt < y.dueAt || (x.dueAt === y.dueAt && x.seq < y.seq);
}

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
  const settings = timeKeeperSettings(options);
  const { realNow, onError } = settings;
  const heap = new JobHeap();
  const handlers = new Map<string, JobHandler>();
  let nextId = 0;
  /** Whether a caller has scheduled under an id of the generated form (`job_12`), which a generated id could meet. */
  let generatedFormTaken = false;

  const run = (job: Job): Promise<void> => runJob(handlers, onError, job);

  const { virtualStartAt } = settings;
  const virtual = virtualStartAt === undefined ? undefined : createVirtualTime(heap, run, virtualStartAt);
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
    mode: settings.mode,
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
