/**
 * The in-memory DeliveryStore. Records are copied in and out so callers
 * cannot change stored state behind the store's back; `update` runs without
 * an await between read and write, so it is atomic in one process.
 */
import type { Delivery, DeliveryAttempt, DeliveryFilter, DeliveryStore } from "./ports.ts";

/**
 * @example
 * const deliveries = createMemoryDeliveryStore();
 * await deliveries.list({ customerId: "demo", state: "failed" });
 */
export function createMemoryDeliveryStore(): DeliveryStore {
  // Map iteration follows insertion, which is creation order.
  const deliveries = new Map<string, Delivery>();
  const attemptsById = new Map<string, DeliveryAttempt[]>();

  const matches = (delivery: Delivery, filter: DeliveryFilter): boolean =>
    (filter.customerId === undefined || delivery.customerId === filter.customerId) &&
    (filter.orderId === undefined || delivery.orderId === filter.orderId) &&
    (filter.reference === undefined || delivery.reference === filter.reference) &&
    (filter.state === undefined || delivery.state === filter.state) &&
    (filter.messageId === undefined || delivery.messageId === filter.messageId);

  return {
    async insert(delivery) {
      if (deliveries.has(delivery.id)) throw new Error(`delivery ${delivery.id} already exists`);
      deliveries.set(delivery.id, structuredClone(delivery));
    },
    async get(id) {
      const delivery = deliveries.get(id);
      return delivery === undefined ? undefined : structuredClone(delivery);
    },
    async update(id, change) {
      const current = deliveries.get(id);
      if (current === undefined) return undefined;
      const next = structuredClone(change(structuredClone(current)));
      deliveries.set(id, next);
      return structuredClone(next);
    },
    async list(filter = {}) {
      const found: Delivery[] = [];
      for (const delivery of deliveries.values()) if (matches(delivery, filter)) found.push(structuredClone(delivery));
      return found;
    },
    async addAttempt(attempt) {
      // An attempt that finishes after its delivery was reset away is not kept.
      if (!deliveries.has(attempt.deliveryId)) return;
      const list = attemptsById.get(attempt.deliveryId) ?? [];
      list.push(structuredClone(attempt));
      attemptsById.set(attempt.deliveryId, list);
    },
    async attempts(deliveryId) {
      return structuredClone(attemptsById.get(deliveryId) ?? []);
    },
    async reset(customerId) {
      if (customerId === undefined) {
        deliveries.clear();
        attemptsById.clear();
        return;
      }
      for (const [id, delivery] of deliveries) {
        if (delivery.customerId !== customerId) continue;
        deliveries.delete(id);
        attemptsById.delete(id);
      }
    },
  };
}
