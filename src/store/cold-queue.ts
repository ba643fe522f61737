/**
 * Which settled records to pack, and when: the `hot` most recently settled
 * stay as objects (what is read right after it settles, a webhook's order or
 * a test's lookup, is read at full speed), and the older ones are packed.
 * A record settled again (a refund, a redelivery) is queued again; one that
 * changed or went meanwhile is the packer's to skip.
 *
 * Packing runs in the background, a short slice per turn of the event
 * loop (at most 256 records and 1 ms), never inside the write that settles
 * a record: an advance of the virtual clock that settles 100,000 orders,
 * or a burst of requests, does not pay for it there and then.
 */
export interface ColdQueue {
  settled(id: string): void;
  clear(): void;
}

export interface ColdQueueOptions {
  /** Records kept as objects after they settle. */
  readonly hot: number;
  /** False: pack at once, inside `settled` (tests that read packed records back). Default true. */
  readonly background?: boolean;
}

/** Records kept as objects after they settle, per store, by default. */
export const DEFAULT_HOT_RECORDS = 1_000;

/** Dead slots at the front of the queue before it is copied down. */
const COMPACT_AFTER = 4_096;
/** Records packed per turn of the event loop, at most. */
const PACKED_PER_TURN = 256;
/**
 * …and no longer than this per turn. Under load a turn of the event loop
 * answers the requests that arrived together; a request that arrives during
 * a packing slice waits for all of it, so the slice's length is added to the
 * tail latency (256 records took 3 ms on a quiet machine and over 10 ms on a
 * busy one). Packing stays ahead all the same: a record costs a fraction of
 * the request that settled it.
 */
const SLICE_MS = 1;
/** Records packed between two looks at the clock. */
const CLOCK_EVERY = 8;

/**
 * @example
 * const queue = createColdQueue({ hot: 1_000 }, (id) => packIfSettled(id));
 * queue.settled(order.id); // the order settled 1,000 settlements ago, if any, is packed soon after
 */
export function createColdQueue(options: ColdQueueOptions, packIfSettled: (id: string) => void): ColdQueue {
  const { hot, background = true } = options;
  let ids: string[] = [];
  let head = 0;
  let scheduled = false;

  function pack(limit: number, until = Number.POSITIVE_INFINITY): void {
    for (let packed = 0; ids.length - head > hot && packed < limit; packed++) {
      if (packed % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() >= until) break;
      packIfSettled(ids[head++] as string);
    }
    if (head >= COMPACT_AFTER && head * 2 >= ids.length) {
      ids = ids.slice(head);
      head = 0;
    }
  }

  function packLater(): void {
    if (scheduled || ids.length - head <= hot) return;
    scheduled = true;
    // Unreferenced: packing is worth nothing to a process that is otherwise done.
    setImmediate(() => {
      scheduled = false;
      pack(PACKED_PER_TURN, performance.now() + SLICE_MS);
      packLater();
    }).unref();
  }

  return {
    settled(id) {
      ids.push(id);
      if (background) packLater();
      else pack(Number.POSITIVE_INFINITY);
    },
    clear() {
      ids = [];
      head = 0;
    },
  };
}
