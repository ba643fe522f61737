/**
 * Which settled records to pack, and when: the `hot` most recently settled
 * stay as objects (what is read right after it settles, a webhook's order or
 * a test's lookup, is read at full speed), and each one settled beyond them
 * packs the oldest. A record settled again (a refund, a redelivery) is queued
 * again; one that changed or went meanwhile is the packer's to skip.
 */
export interface ColdQueue {
  settled(id: string): void;
  clear(): void;
}

/** Records kept as objects after they settle, per store, by default. */
export const DEFAULT_HOT_RECORDS = 1_000;

/** Dead slots at the front of the queue before it is copied down. */
const COMPACT_AFTER = 4_096;

/**
 * @example
 * const queue = createColdQueue(1_000, (id) => packIfSettled(id));
 * queue.settled(order.id); // packs the order settled 1,000 settlements ago, if any
 */
export function createColdQueue(hot: number, packIfSettled: (id: string) => void): ColdQueue {
  let ids: string[] = [];
  let head = 0;
  return {
    settled(id) {
      ids.push(id);
      while (ids.length - head > hot) packIfSettled(ids[head++] as string);
      if (head >= COMPACT_AFTER && head * 2 >= ids.length) {
        ids = ids.slice(head);
        head = 0;
      }
    },
    clear() {
      ids = [];
      head = 0;
    },
  };
}
