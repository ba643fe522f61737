/**
 * The in-memory DeliveryStore. Records are copied in and frozen, so callers
 * cannot change stored state behind the store's back, and reads hand out the
 * frozen records themselves; `update` runs without an await between read and
 * write, so it is atomic in one process.
 *
 * Deliveries are indexed by order (the eviction guard asks per order) and by
 * creation (a listing page starts where the last one ended). A finished
 * delivery beyond the most recently finished ones is kept packed with its
 * attempts (packed-delivery.ts). Its whole state is what `--state-file`
 * saves for the webhooks, checked on load (`parseDeliveryState`).
 */
import { z } from "zod";
import { type ColdQueue, createColdQueue, DEFAULT_HOT_RECORDS } from "../store/cold-queue.ts";
import { type CreationIndex, createCreationIndex } from "../store/creation-index.ts";
import { freezeCopy } from "../store/freeze-copy.ts";
import { matchesDeliveryFilter } from "./delivery-filter.ts";
import { PackedDelivery } from "./packed-delivery.ts";
import {
  ATTEMPT_OUTCOMES,
  ATTEMPT_TRIGGERS,
  DELIVERY_KINDS,
  DELIVERY_STATES,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryFilter,
  type DeliveryStore,
} from "./ports.ts";

// A packed delivery keeps every field a listing filters on but the message id: a rare filter, it unpacks.
const messageIdOf = (stored: Delivery | PackedDelivery): string =>
  stored instanceof PackedDelivery ? stored.unpack().delivery.messageId : stored.messageId;

const matches = (stored: Delivery | PackedDelivery, filter: DeliveryFilter): boolean =>
  matchesDeliveryFilter(stored, filter, messageIdOf);

/** Every delivery with its attempts, in creation order: what `--state-file` saves. */
export interface DeliveryStoreState {
  readonly deliveries: readonly { readonly delivery: Delivery; readonly attempts: readonly DeliveryAttempt[] }[];
}

// What a state file holds is checked on load, so a hand-edited or foreign file is refused whole,
// never half-loaded.
const DeliverySchema = z.looseObject({
  id: z.string(),
  messageId: z.string(),
  kind: z.enum(DELIVERY_KINDS),
  customerId: z.string(),
  orderId: z.string(),
  reference: z.string(),
  status: z.int(),
  final: z.boolean(),
  body: z.string(),
  state: z.enum(DELIVERY_STATES),
  createdAt: z.number(),
  nextAttemptAt: z.number().nullable(),
  nextJobId: z.string().nullable(),
  scheduleIndex: z.int().min(0),
  attemptCount: z.int().min(0),
  deliveredAt: z.number().nullable(),
  badSignature: z.boolean(),
});

const AttemptSchema = z.looseObject({
  deliveryId: z.string(),
  number: z.int().min(1),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  sentAt: z.number(),
  url: z.string(),
  requestBody: z.string(),
});

const DeliveryStoreStateSchema = z.object({
  deliveries: z.array(z.object({ delivery: DeliverySchema, attempts: z.array(AttemptSchema) })),
});

/** The saved deliveries, or an error naming the first field that is wrong. */
export function parseDeliveryState(saved: unknown): DeliveryStoreState {
  const parsed = DeliveryStoreStateSchema.safeParse(saved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`webhook deliveries: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "not valid"}`);
  }
  // The fields checked above are the ones the dispatcher reads; the rest are kept as they were saved.
  return parsed.data as unknown as DeliveryStoreState;
}

/** The memory delivery store, with its whole state to save and load. */
export interface MemoryDeliveryStore extends DeliveryStore {
  exportState(): DeliveryStoreState;
  /** Adds the saved deliveries and attempts to what is held. */
  importState(state: DeliveryStoreState): Promise<void>;
}

export interface MemoryDeliveryStoreOptions {
  /** Finished deliveries kept as objects; default {@link DEFAULT_HOT_RECORDS}. */
  readonly hotDeliveries?: number;
  /** False: pack inside the write that finishes a delivery, not in the background (tests). */
  readonly packInBackground?: boolean;
}

/**
 * @example
 * const deliveries = createMemoryDeliveryStore();
 * await deliveries.list({ customerId: "demo", state: "failed" });
 */
export function createMemoryDeliveryStore(options: MemoryDeliveryStoreOptions = {}): MemoryDeliveryStore {
  const held = holdDeliveries(options);
  const { deliveries, attemptsById, index } = held;

  const store: MemoryDeliveryStore = {
    exportState() {
      return {
        deliveries: Array.from(deliveries.values(), (stored) =>
          stored instanceof PackedDelivery
            ? stored.unpack()
            : { delivery: stored, attempts: attemptsById.get(stored.id) ?? [] },
        ),
      };
    },
    async importState(state) {
      for (const { delivery, attempts } of state.deliveries) {
        await store.insert(delivery);
        for (const attempt of attempts) await store.addAttempt(attempt);
      }
    },
    insert: async (delivery) => insert(held, delivery),
    get: async (id) => read(held, id),
    async update(id, change) {
      const current = unpacked(held, id);
      if (current === undefined) return undefined;
      const next = freezeCopy(change(current), current);
      keep(held, next);
      return next;
    },
    list: async (filter = {}) => list(held, filter),
    async listPage(query) {
      const page = index.page(query, (delivery) => matches(delivery, query));
      return {
        deliveries: page.items.map((stored) => (stored instanceof PackedDelivery ? stored.unpack().delivery : stored)),
        nextCursor: page.nextCursor,
      };
    },
    async addAttempt(attempt) {
      // An attempt that finishes after its delivery was reset away is not kept.
      const delivery = unpacked(held, attempt.deliveryId);
      if (delivery === undefined) return;
      const list = attemptsById.get(attempt.deliveryId) ?? [];
      list.push(freezeCopy(attempt));
      attemptsById.set(attempt.deliveryId, list);
      if (delivery.state !== "pending") held.cold.settled(delivery.id);
    },
    async attempts(deliveryId) {
      const stored = deliveries.get(deliveryId);
      if (stored instanceof PackedDelivery) return [...stored.unpack().attempts];
      return [...(attemptsById.get(deliveryId) ?? [])];
    },
    async removeOrders(orderIds) {
      for (const orderId of orderIds) {
        for (const id of idsOfOrder(held, orderId)) forget(held, id);
        held.byOrder.delete(orderId);
      }
    },
    reset: async (customerId) => reset(held, customerId),
  };
  return store;
}

/**
 * What the store holds, in one object, so each operation on it is a named
 * function rather than one more closure inside the factory.
 */
interface Held {
  /** Map iteration follows insertion, which is creation order. */
  readonly deliveries: Map<string, Delivery | PackedDelivery>;
  /** The attempts of the deliveries kept as objects (a packed one holds its own). */
  readonly attemptsById: Map<string, DeliveryAttempt[]>;
  /** orderId → its delivery's id, or their ids when it has several (most have one: no array for them). */
  readonly byOrder: Map<string, string | string[]>;
  readonly index: CreationIndex<Delivery | PackedDelivery>;
  /** Finished deliveries waiting to be packed, beyond the most recently finished. */
  readonly cold: ColdQueue;
}

function holdDeliveries({
  hotDeliveries: hot = DEFAULT_HOT_RECORDS,
  packInBackground: background = true,
}: MemoryDeliveryStoreOptions): Held {
  const deliveries = new Map<string, Delivery | PackedDelivery>();
  const attemptsById = new Map<string, DeliveryAttempt[]>();
  const cold = createColdQueue({ hot, background }, (id) => {
    const stored = deliveries.get(id);
    if (stored === undefined || stored instanceof PackedDelivery || stored.state === "pending") return;
    deliveries.set(id, new PackedDelivery(stored, attemptsById.get(id) ?? []));
    attemptsById.delete(id);
  });
  return {
    deliveries,
    attemptsById,
    byOrder: new Map(),
    index: createCreationIndex<Delivery | PackedDelivery>((id) => deliveries.get(id)),
    cold,
  };
}

function idsOfOrder({ byOrder }: Held, orderId: string): readonly string[] {
  const ids = byOrder.get(orderId);
  return ids === undefined ? [] : typeof ids === "string" ? [ids] : ids;
}

/** Keeps a new version of a delivery as an object, and queues it for packing once it is finished. */
function keep({ deliveries, cold }: Held, delivery: Delivery): void {
  deliveries.set(delivery.id, delivery);
  if (delivery.state !== "pending") cold.settled(delivery.id);
}

function read({ deliveries }: Held, id: string): Delivery | undefined {
  const stored = deliveries.get(id);
  return stored instanceof PackedDelivery ? stored.unpack().delivery : stored;
}

/** A delivery as an object again, with its attempts, so it can change. */
function unpacked({ deliveries, attemptsById }: Held, id: string): Delivery | undefined {
  const stored = deliveries.get(id);
  if (!(stored instanceof PackedDelivery)) return stored;
  const { delivery, attempts } = stored.unpack();
  deliveries.set(id, delivery);
  attemptsById.set(id, [...attempts]);
  return delivery;
}

function forget({ deliveries, attemptsById, index }: Held, id: string): void {
  const delivery = deliveries.get(id);
  if (delivery === undefined) return;
  deliveries.delete(id);
  attemptsById.delete(id);
  index.removed(delivery.customerId);
}

function insert(held: Held, delivery: Delivery): boolean {
  const { deliveries, byOrder } = held;
  if (deliveries.has(delivery.id)) return false;
  const stored = freezeCopy(delivery);
  keep(held, stored);
  held.index.add(stored);
  const own = byOrder.get(delivery.orderId);
  if (own === undefined) byOrder.set(delivery.orderId, delivery.id);
  else if (typeof own === "string") byOrder.set(delivery.orderId, [own, delivery.id]);
  else own.push(delivery.id);
  return true;
}

/** An order's deliveries come from the order index; any other filter walks them all, in creation order. */
function list(held: Held, filter: DeliveryFilter): Delivery[] {
  const found: Delivery[] = [];
  if (filter.orderId !== undefined) {
    for (const id of idsOfOrder(held, filter.orderId)) {
      const stored = held.deliveries.get(id);
      if (stored !== undefined && matches(stored, filter)) found.push(read(held, id) as Delivery);
    }
    return found;
  }
  for (const [id, stored] of held.deliveries) if (matches(stored, filter)) found.push(read(held, id) as Delivery);
  return found;
}

function reset(held: Held, customerId: string | undefined): void {
  const { deliveries, attemptsById, byOrder, index } = held;
  if (customerId === undefined) {
    deliveries.clear();
    attemptsById.clear();
    byOrder.clear();
    index.clear();
    held.cold.clear();
    return;
  }
  for (const [id, delivery] of deliveries) {
    if (delivery.customerId !== customerId) continue;
    deliveries.delete(id);
    attemptsById.delete(id);
    byOrder.delete(delivery.orderId);
  }
  index.dropCustomer(customerId);
}
