/**
 * The embedded clock and scheduler: one min-heap of jobs, driven either by
 * real timers or by a virtual clock that moves only when told to.
 */
import type { Clock, Job, JobHandler, Scheduler } from "../domain/ports.ts";

export interface ManualClock extends Clock {
  /** Moves virtual time forward, running every job that falls due, in order. */
  advance(ms: number): Promise<void>;
}

export interface TimeKeeper {
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly mode: "real" | "virtual";
  /** Virtual mode only; throws in real mode. */
  advance(ms: number): Promise<void>;
  /** Stops real timers; pending jobs are kept but never run. */
  stop(): void;
}

interface HeapEntry {
  readonly job: Job;
  readonly seq: number;
}

class JobHeap {
  private readonly items: HeapEntry[] = [];
  private seq = 0;
  private readonly cancelled = new Set<string>();
  private live = 0;

  push(job: Job): void {
    const entry = { job, seq: this.seq++ };
    this.items.push(entry);
    this.live++;
    this.up(this.items.length - 1);
  }

  cancel(id: string): boolean {
    if (!this.items.some((entry) => entry.job.id === id) || this.cancelled.has(id)) return false;
    this.cancelled.add(id);
    this.live--;
    return true;
  }

  get size(): number {
    return this.live;
  }

  /** The earliest live job without removing it. */
  peek(): Job | undefined {
    this.dropCancelledTop();
    return this.items[0]?.job;
  }

  pop(): Job | undefined {
    this.dropCancelledTop();
    const top = this.items[0];
    if (top === undefined) return undefined;
    this.removeTop();
    this.live--;
    return top.job;
  }

  private dropCancelledTop(): void {
    for (let top = this.items[0]; top !== undefined && this.cancelled.has(top.job.id); top = this.items[0]) {
      this.cancelled.delete(top.job.id);
      this.removeTop();
    }
  }

  private removeTop(): void {
    const last = this.items.pop();
    if (last !== undefined && this.items.length > 0) {
      this.items[0] = last;
      this.down(0);
    }
  }

  private less(a: number, b: number): boolean {
    const x = this.items[a] as HeapEntry;
    const y = this.items[b] as HeapEntry;
    return x.job.dueAt < y.job.dueAt || (x.job.dueAt === y.job.dueAt && x.seq < y.seq);
  }

  private swap(a: number, b: number): void {
    const tmp = this.items[a] as HeapEntry;
    this.items[a] = this.items[b] as HeapEntry;
    this.items[b] = tmp;
  }

  private up(index: number): void {
    for (let i = index; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(index: number): void {
    const n = this.items.length;
    for (let i = index; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(left, smallest)) smallest = left;
      if (right < n && this.less(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}

export interface TimeKeeperOptions {
  readonly mode: "real" | "virtual";
  /** Start of virtual time (ms since epoch); defaults to the real time at creation. */
  readonly startAt?: number;
  /** Real time source, injectable for tests. */
  readonly realNow?: () => number;
  /** Called when a job handler throws, instead of losing the error silently. */
  readonly onError?: (error: unknown, job: Job) => void;
}

export function createTimeKeeper(options: TimeKeeperOptions): TimeKeeper {
  const realNow = options.realNow ?? (() => Date.now());
  const heap = new JobHeap();
  const handlers = new Map<string, JobHandler>();
  let virtualNow = options.startAt ?? realNow();
  let nextId = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let draining = false;

  const now = (): number => (options.mode === "virtual" ? virtualNow : realNow());
  const onError =
    options.onError ??
    ((error: unknown, job: Job) => {
      console.error(`scheduled job ${job.type} ${job.id} failed:`, error);
    });

  async function run(job: Job): Promise<void> {
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

  // Real mode: one timer for the earliest job; due jobs run in order.
  async function drainDue(): Promise<void> {
    if (draining || stopped) return;
    draining = true;
    try {
      for (let job = heap.peek(); job !== undefined && job.dueAt <= realNow(); job = heap.peek()) {
        heap.pop();
        await run(job);
      }
    } finally {
      draining = false;
      arm();
    }
  }

  function arm(): void {
    if (options.mode !== "real" || stopped || draining) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const next = heap.peek();
    if (next === undefined) return;
    // setTimeout caps at ~24.8 days; a later job simply re-arms.
    const delay = Math.min(Math.max(0, next.dueAt - realNow()), 2 ** 31 - 1);
    timer = setTimeout(() => {
      timer = undefined;
      void drainDue();
    }, delay);
    timer.unref?.();
  }

  const scheduler: Scheduler = {
    handle(type, handler) {
      handlers.set(type, handler);
    },
    async schedule({ type, dueAt, payload, id }) {
      const jobId = id ?? `job_${++nextId}`;
      heap.push({ id: jobId, type, dueAt, payload });
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
  };

  return {
    clock: { now },
    scheduler,
    mode: options.mode,
    async advance(ms: number) {
      if (options.mode !== "virtual") throw new Error("advance() needs a virtual clock");
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advance(ms) needs a finite ms >= 0");
      const target = virtualNow + ms;
      // Jobs scheduled by handlers inside the window run in this same advance.
      for (let job = heap.peek(); job !== undefined && job.dueAt <= target; job = heap.peek()) {
        heap.pop();
        virtualNow = Math.max(virtualNow, job.dueAt);
        await run(job);
      }
      virtualNow = target;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
