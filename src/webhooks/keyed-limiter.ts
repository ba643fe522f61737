/**
 * At most `max` tasks at once per key (an endpoint's origin), so a burst of
 * webhooks to one receiver is paced, and a receiver that hangs holds up only
 * its own queue, never another customer's.
 */
export interface KeyedLimiter {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export function createKeyedLimiter(max: number): KeyedLimiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError("a limiter needs max >= 1");
  const active = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();

  function acquire(key: string): Promise<void> | undefined {
    const count = active.get(key) ?? 0;
    if (count < max) {
      active.set(key, count + 1);
      return undefined;
    }
    return new Promise((resolve) => {
      const queue = waiting.get(key) ?? [];
      queue.push(resolve);
      waiting.set(key, queue);
    });
  }

  function release(key: string): void {
    const queue = waiting.get(key);
    const next = queue?.shift();
    if (next !== undefined) {
      // The slot passes straight to the next task; the count stays.
      if (queue?.length === 0) waiting.delete(key);
      next();
      return;
    }
    const count = (active.get(key) ?? 1) - 1;
    if (count === 0) active.delete(key);
    else active.set(key, count);
  }

  return {
    async run(key, task) {
      await acquire(key);
      try {
        return await task();
      } finally {
        release(key);
      }
    },
  };
}
