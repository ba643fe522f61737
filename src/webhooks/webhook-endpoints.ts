/**
 * Turning a customer's webhook endpoint off (a 410 Gone) and on again (a
 * redelivery with `enable`). Both change the endpoint alone, through
 * `patchCustomer`: writing the whole customer back would also write its
 * wallets as they were read, undoing a debit made between the read and the
 * write, so a 410 during traffic would create money.
 */
import type { WebhookEndpoint } from "../domain/model.ts";
import type { Store } from "../domain/ports.ts";

/** Disables the customer's endpoint if it is still at `url`: the URL may have been changed meanwhile. */
export async function disableEndpoint(store: Store, customerId: string, url: string): Promise<void> {
  const customer = await store.getCustomer(customerId);
  if (customer?.webhook === undefined || customer.webhook.url !== url) return;
  await store.patchCustomer(customerId, { webhook: { ...customer.webhook, disabled: true } });
}

/** Enables the customer's endpoint; undefined when there is none. */
export async function enableEndpoint(store: Store, customerId: string): Promise<WebhookEndpoint | undefined> {
  const customer = await store.getCustomer(customerId);
  if (customer?.webhook === undefined) return undefined;
  const { disabled: _cleared, ...webhook } = customer.webhook;
  await store.patchCustomer(customerId, { webhook });
  return webhook;
}
