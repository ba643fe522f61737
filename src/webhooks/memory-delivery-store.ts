/**
 * The in-memory DeliveryStore. Records are copied in and frozen, so callers
 * cannot change stored state behind the store's back, and reads hand out the
 * frozen records themselves; `update` runs without an await between read and
 * write, so it is atomic in one process.
 *
 * Deliveries are indexed by order (the eviction guard asks per order) and by
 * creation (a listing page starts where the last one ended).
 */
import { createCreationIndex } from "../store/creation-index.ts";
import { freezeCopy } from "../store/freeze-copy.ts";
import { matchesDeliveryFilter as matches } from "./delivery-filter.ts";
import type { Delivery, DeliveryAttempt, DeliveryStore } from "./ports.ts";

/** Every delivery with its attempts, in creation order: what `--state-file` saves. */
export interface DeliveryStoreState {
  readonly deliveries: readonly { readonly delivery: Delivery; readonly attempts: readonly DeliveryAttempt[] }[];
}

/** The memory delivery store, with its whole state to save and load. */
export interface MemoryDeliveryStore extends DeliveryStore {
  exportState(): DeliveryStoreState;
  /** Adds the saved deliveries and attempts to what is held. */
  importState(state: DeliveryStoreState): Promise<void>;
}

/**
 * @example
 * const deliveries = createMemoryDeliveryStore();
 * await deliveries.list({ customerId: "demo", state: "failed" });
 */
export function createMemoryDeliveryStore(): MemoryDeliveryStore {
  // Map iteration follows insertion, which is creation order.
  const deliveries = new Map<string, Delivery>();
  const attemptsById = new Map<string, DeliveryAttempt[]>();
  /** orderId → its deliveries' ids */
  const byOrder = new Map<string, string[]>();
  const index = createCreationIndex<Delivery>((id) => deliveries.get(id));

  function forget(id: string): void {
    const delivery = deliveries.get(id);
    if (delivery === undefined) return;
    deliveries.delete(id);
    attemptsById.delete(id);
    index.removed(delivery.customerId);
  }

  function ofOrder(orderId: string): Delivery[] {
    const found: Delivery[] = [];
    for (const id of byOrder.get(orderId) ?? []) {
      const delivery = deliveries.get(id);
      if (delivery !== undefined) found.push(delivery);
    }
    return found;
  }

  const store: MemoryDeliveryStore = {
    exportState() {
      return {
        deliveries: [...deliveries.values()].map((delivery) => ({
          delivery,
          attempts: attemptsById.get(delivery.id) ?? [],
        })),
      };
    },
    async importState(state) {
      for (const { delivery, attempts } of state.deliveries) {
        await store.insert(delivery);
        for (const attempt of attempts) await store.addAttempt(attempt);
      }
    },
    async insert(delivery) {
      if (deliveries.has(delivery.id)) throw new Error(`delivery ${delivery.id} already exists`);
      const stored = freezeCopy(delivery);
      deliveries.set(delivery.id, stored);
      index.add(stored);
      const own = byOrder.get(delivery.orderId);
      if (own === undefined) byOrder.set(delivery.orderId, [delivery.id]);
      else own.push(delivery.id);
    },
    async get(id) {
      return deliveries.get(id);
    },
    async update(id, change) {
      const current = deliveries.get(id);
      if (current === undefined) return undefined;
      const next = freezeCopy(change(current), current);
      deliveries.set(id, next);
      return next;
    },
    async list(filter = {}) {
      const found: Delivery[] = [];
      const candidates = filter.orderId === undefined ? deliveries.values() : ofOrder(filter.orderId);
      for (const delivery of candidates) if (matches(delivery, filter)) found.push(delivery);
      return found;
    },
    async listPage(query) {
      const page = index.page(query, (delivery) => matches(delivery, query));
      return { deliveries: page.items, nextCursor: page.nextCursor };
    },
    async addAttempt(attempt) {
      // An attempt that finishes after its delivery was reset away is not kept.
      const delivery = deliveries.get(attempt.deliveryId);
      if (delivery === undefined) return;
      const list = attemptsById.get(attempt.deliveryId) ?? [];
      list.push(freezeCopy(attempt));
      attemptsById.set(attempt.deliveryId, list);
    },
    async attempts(deliveryId) {
      return [...(attemptsById.get(deliveryId) ?? [])];
    },
    async removeOrders(orderIds) {
      for (const orderId of orderIds) {
        for (const id of byOrder.get(orderId) ?? []) forget(id);
        byOrder.delete(orderId);
      }
    },
    async reset(customerId) {
      if (customerId === undefined) {
        deliveries.clear();
        attemptsById.clear();
        byOrder.clear();
        index.clear();
        return;
      }
      for (const [id, delivery] of deliveries) {
        if (delivery.customerId !== customerId) continue;
        deliveries.delete(id);
        attemptsById.delete(id);
        byOrder.delete(delivery.orderId);
      }
      index.dropCustomer(customerId);
    },
  };
  return store;
}
