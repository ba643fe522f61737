/** Whether a delivery passes a listing's filter: one rule for every DeliveryStore adapter. */
import type { Delivery, DeliveryFilter } from "./ports.ts";

/**
 * @param messageIdOf the delivery's message id, asked only when the filter
 *   names one (a packed delivery keeps it inside what is packed).
 */
export function matchesDeliveryFilter<D extends Pick<Delivery, "customerId" | "orderId" | "reference" | "state">>(
  delivery: D,
  filter: DeliveryFilter,
  messageIdOf: (delivery: D) => string = (of) => (of as unknown as Delivery).messageId,
): boolean {
  return (
    (filter.customerId === undefined || delivery.customerId === filter.customerId) &&
    (filter.orderId === undefined || delivery.orderId === filter.orderId) &&
    (filter.reference === undefined || delivery.reference === filter.reference) &&
    (filter.referencePrefix === undefined || delivery.reference.startsWith(filter.referencePrefix)) &&
    (filter.state === undefined || delivery.state === filter.state) &&
    (filter.messageId === undefined || messageIdOf(delivery) === filter.messageId)
  );
}
