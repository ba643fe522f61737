/**
 * The memory store's settings, normalised once: its defaults in one table,
 * and one frozen settings object the store reads as it is. How many settled
 * orders stay unpacked, and whether packing runs in the background, are the
 * cold queue's defaults (`cold-queue.ts`), which it shares with the delivery
 * store.
 */
import type { Order } from "../domain/model.ts";
import { type ColdQueueOptions, DEFAULT_HOT_RECORDS } from "./cold-queue.ts";

export interface MemoryStoreOptions {
  /**
   * Whether an order is settled (final): a settled order beyond the
   * `hotOrders` most recently settled is kept packed (see record-packer.ts).
   * Without it nothing is packed.
   */
  readonly settled?: (order: Order) => boolean;
  /** Settled orders kept as objects; default {@link DEFAULT_HOT_RECORDS}. */
  readonly hotOrders?: number;
  /** False: pack inside the write that settles an order, not in the background (tests). */
  readonly packInBackground?: boolean;
}

const MEMORY_STORE_DEFAULTS = Object.freeze({
  settled: (_order: Order): boolean => false,
  hotOrders: DEFAULT_HOT_RECORDS,
});

/**
 * @example
 * memoryStoreSettings({ packInBackground: false }).packing; // { hot: 1000, background: false }
 */
export function memoryStoreSettings(options: MemoryStoreOptions) {
  const packing: ColdQueueOptions = {
    hot: options.hotOrders ?? MEMORY_STORE_DEFAULTS.hotOrders,
    ...(options.packInBackground === undefined ? {} : { background: options.packInBackground }),
  };
  return Object.freeze({
    settled: options.settled ?? MEMORY_STORE_DEFAULTS.settled,
    packing: Object.freeze(packing),
  });
}
