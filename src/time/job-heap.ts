/**
 * The job heap behind the embedded scheduler, on its own: it is the part
 * that must stay fast with 100,000 jobs waiting, and it knows nothing of
 * clocks, timers or handlers.
 */
import type { Job } from "../domain/ports.ts";

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
export class JobHeap {
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
