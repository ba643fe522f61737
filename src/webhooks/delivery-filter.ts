/** Whether a delivery passes a listing's filter: one rule for every DeliveryStore adapter. */
import type { Delivery, DeliveryFilter } from "./ports.ts";

export const matchesDeliveryFilter = (delivery: Delivery, filter: DeliveryFilter): boolean =>
  (filter.customerId === undefined || delivery.customerId === filter.customerId) &&
  (filter.orderId === undefined || delivery.orderId === filter.orderId) &&
  (filter.reference === undefined || delivery.reference === filter.reference) &&
  (filter.referencePrefix === undefined || delivery.reference.startsWith(filter.referencePrefix)) &&
  (filter.state === undefined || delivery.state === filter.state) &&
  (filter.messageId === undefined || delivery.messageId === filter.messageId);
