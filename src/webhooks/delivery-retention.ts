/**
 * The webhooks' say in the order cap: an order with a delivery still pending
 * (or whose status change is still being turned into deliveries) is never
 * evicted, and an evicted order's deliveries and attempts go with it.
 */
import type { OrderEvents, StatusChange } from "../domain/service-types.ts";
import type { RetentionGuard } from "../domain/order-retention.ts";
import type { DeliveryStore } from "./ports.ts";

export interface DeliveryRetention {
  /** The dispatcher's listener, wrapped to mark orders whose deliveries are being made. */
  readonly events: OrderEvents;
  readonly guard: RetentionGuard;
}

/**
 * @example
 * const retention = createDeliveryRetention(dispatcher.events, dispatcher.deliveries);
 * plugin = { events: retention.events, retention: retention.guard, … };
 */
export function createDeliveryRetention(inner: OrderEvents, deliveries: DeliveryStore): DeliveryRetention {
  /** order id → status changes of it being handled now */
  const handling = new Map<string, number>();
  return {
    events: {
      async statusChanged(change: StatusChange) {
        const { id } = change.order;
        handling.set(id, (handling.get(id) ?? 0) + 1);
        try {
          await inner.statusChanged(change);
        } finally {
          const left = (handling.get(id) ?? 1) - 1;
          if (left === 0) handling.delete(id);
          else handling.set(id, left);
        }
      },
    },
    guard: {
      async canEvict(order) {
        if (handling.has(order.id)) return false;
        // Asked for pending ones only: a store need not read back the finished ones it keeps packed.
        return (await deliveries.list({ orderId: order.id, state: "pending" })).length === 0;
      },
      async evicted(orders) {
        await deliveries.removeOrders(orders.map((order) => order.id));
      },
    },
  };
}
