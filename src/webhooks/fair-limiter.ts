/**
 * Caps on webhook attempts in flight: a global cap, a cap per endpoint, and a
 * bounded queue per endpoint. When a slot frees, the endpoints with waiting
 * attempts take turns (round robin), so an endpoint that hangs holds at most
 * its own cap of slots and never makes another endpoint wait behind its
 * queue. Hand-written rather than p-limit or p-queue: those have one queue,
 * and fairness across keys with a bound per key is the point here.
 */

/** Why a waiting task was never run: its queue overflowed, or its endpoint's queue was cancelled. */
export type ShedReason = "queue_overflow" | "cancelled";

export type SlotResult<T> =
  { readonly kind: "ran"; readonly value: T } | { readonly kind: "shed"; readonly reason: ShedReason };

export interface FairLimiterOptions {
  /** Tasks running at once, all keys together. */
  readonly maxActive: number;
  /** Tasks running at once for one key. */
  readonly maxActivePerKey: number;
  /** Tasks waiting for one key; one more sheds the oldest waiting one. */
  readonly maxQueuedPerKey: number;
}

export interface FairLimiter {
  /** Runs `task` when a slot is free for `key`, or resolves as shed if it never gets one. */
  run<T>(key: string, task: () => Promise<T>): Promise<SlotResult<T>>;
  /** Sheds every task still waiting for `key` (reason `cancelled`); returns how many. */
  cancelQueued(key: string): number;
}

interface Waiter {
  start(): void;
  shed(reason: ShedReason): void;
}

interface Lane {
  active: number;
  readonly waiting: Waiter[];
}

/**
 * @example
 * const limiter = createFairLimiter({ maxActive: 256, maxActivePerKey: 32, maxQueuedPerKey: 1000 });
 * const result = await limiter.run("acme https://acme.example/hooks", () => fetch(url, init));
 * if (result.kind === "shed") console.log(result.reason); // "queue_overflow" or "cancelled"
 */
export function createFairLimiter(options: FairLimiterOptions): FairLimiter {
  const { maxActive, maxActivePerKey, maxQueuedPerKey } = options;
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < (name === "maxQueuedPerKey" ? 0 : 1)) {
      throw new RangeError(`a limiter needs an integer ${name} >= ${name === "maxQueuedPerKey" ? 0 : 1}`);
    }
  }
  const lanes = new Map<string, Lane>();
  // Lanes with waiting tasks, in turn order: a lane served goes to the back.
  const ready = new Map<string, Lane>();
  let active = 0;

  function forget(key: string, lane: Lane): void {
    if (lane.active === 0 && lane.waiting.length === 0 && lanes.get(key) === lane) lanes.delete(key);
  }

  /** Gives free slots to waiting tasks, one lane at a time in turn. */
  function pump(): void {
    while (active < maxActive) {
      let started = false;
      for (const [key, lane] of ready) {
        if (lane.active >= maxActivePerKey) continue;
        const waiter = lane.waiting.shift() as Waiter;
        ready.delete(key);
        if (lane.waiting.length > 0) ready.set(key, lane);
        lane.active++;
        active++;
        waiter.start();
        started = true;
        break;
      }
      if (!started) return;
    }
  }

  function admit(key: string, lane: Lane): Promise<ShedReason | undefined> {
    // No waiting task could use a free slot (pump runs on every release), so a free slot is this task's.
    if (lane.active < maxActivePerKey && active < maxActive) {
      lane.active++;
      active++;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      if (lane.waiting.length >= maxQueuedPerKey) lane.waiting.shift()?.shed("queue_overflow");
      if (maxQueuedPerKey === 0) {
        resolve("queue_overflow");
        return;
      }
      lane.waiting.push({ start: () => resolve(undefined), shed: (reason) => resolve(reason) });
      if (!ready.has(key)) ready.set(key, lane);
    });
  }

  return {
    async run(key, task) {
      const lane = lanes.get(key) ?? { active: 0, waiting: [] };
      lanes.set(key, lane);
      const shed = await admit(key, lane);
      if (shed !== undefined) {
        forget(key, lane);
        return { kind: "shed", reason: shed };
      }
      try {
        return { kind: "ran", value: await task() };
      } finally {
        lane.active--;
        active--;
        forget(key, lane);
        pump();
      }
    },
    cancelQueued(key) {
      const lane = lanes.get(key);
      if (lane === undefined) return 0;
      const doomed = lane.waiting.splice(0);
      ready.delete(key);
      forget(key, lane);
      for (const waiter of doomed) waiter.shed("cancelled");
      return doomed.length;
    },
  };
}
