/**
 * A settled order as the memory store keeps it once it is cold: the fields
 * its listings filter and page on, and the eviction scan reads (it is an
 * `EvictionCandidate` as it is), and the rest packed.
 */
import type { EvictionCandidate, Order } from "../domain/model.ts";
import { candidateOf } from "../domain/order-retention.ts";
import { createRecordPacker } from "./record-packer.ts";

/** The dictionary's sample: a typical final order (only its shape and common values matter). */
const SAMPLE_ORDER: Order = {
  id: "ord_0000000000000000000",
  customerId: "demo",
  reference: "ref-0000",
  service: "safaricom",
  account: "+254712345678",
  amountCents: 10_000,
  currency: "KES",
  shortcode: null,
  status: 20,
  message: "Success",
  createdAt: 1_800_000_000_000,
  updatedAt: 1_800_000_002_000,
  history: [
    { status: 0, message: "Pending", at: 1_800_000_000_000 },
    { status: 20, message: "Success", at: 1_800_000_002_000 },
  ],
  plan: { steps: [{ afterMs: 2_000, status: 20 }] },
  idempotencyKey: "key-0000",
};

const packer = createRecordPacker(SAMPLE_ORDER, [
  "id",
  "customerId",
  "reference",
  "status",
  "message",
  "createdAt",
  "updatedAt",
]);

export class PackedOrder implements EvictionCandidate {
  readonly id: string;
  readonly customerId: string;
  readonly reference: string;
  readonly status: number;
  readonly message: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The order's version (its history's length), for compare-and-set without unpacking. */
  readonly version: number;
  private readonly packed: string;

  constructor(order: Order) {
    this.id = order.id;
    this.customerId = order.customerId;
    this.reference = order.reference;
    this.status = order.status;
    this.message = order.message;
    this.createdAt = order.createdAt;
    this.updatedAt = order.updatedAt;
    this.version = order.history.length;
    this.packed = packer.pack(order);
    // The eviction scan is handed the packed order itself: frozen, nothing it holds can change the store.
    Object.freeze(this);
  }

  unpack(): Order {
    return packer.unpack(this.packed, this);
  }
}

/** An order as stored: as it is, or packed once settled and cold. */
export type StoredOrder = Order | PackedOrder;

export const orderOf = (stored: StoredOrder): Order => (stored instanceof PackedOrder ? stored.unpack() : stored);

/** What the eviction scan reads, without unpacking. */
export const candidateOfStored = (stored: StoredOrder): EvictionCandidate =>
  stored instanceof PackedOrder ? stored : candidateOf(stored);

export const versionOf = (stored: StoredOrder): number =>
  stored instanceof PackedOrder ? stored.version : stored.history.length;
