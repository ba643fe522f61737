/**
 * Normalising a send-airtime request: the recipient to E.164, the service
 * (explicit, else detected from the prefix), the funding wallet. The result
 * is the payload an idempotency key is bound to.
 */
import { ACCOUNT_PATTERN, detectService, parseKenyanMobile } from "../contract/operators.ts";
import type { Customer, OrderFingerprint } from "./model.ts";
import type { PlaceOrderCommand } from "./service-types.ts";

export type NormalisedRequest =
  | { readonly kind: "normalised"; readonly fingerprint: OrderFingerprint }
  | { readonly kind: "service_undetectable"; readonly account: string }
  | { readonly kind: "unknown_shortcode"; readonly shortcode: string };

/**
 * The E.164 form of an account in any of the four written forms
 * (`+2547…`, `2547…`, `07…`, `7…`); undefined when it is not one.
 * Accounts outside the mobile ranges still normalise (an explicit service
 * may name them); only service detection needs a known prefix.
 */
function normaliseParsedAccount(account: string, parsed: ReturnType<typeof parseKenyanMobile>): string | undefined {
  if (parsed !== undefined) return parsed.e164;
  return ACCOUNT_PATTERN.test(account) ? `+254${account.slice(-9)}` : undefined;
}

/**
 * Resolves account, service and wallet for one customer. An explicit service
 * always wins (number portability); without one the prefix decides.
 *
 * @example
 * normaliseOrderRequest(customer, { account: "0712345678", amountCents: 1000, currency: "KES", reference: "r1" });
 * // { kind: "normalised", fingerprint: { account: "+254712345678", service: "safaricom", shortcode: null, … } }
 */
export function normaliseOrderRequest(customer: Customer, request: PlaceOrderCommand["request"]): NormalisedRequest {
  const parsed = parseKenyanMobile(request.account);
  const account = normaliseParsedAccount(request.account, parsed);
  const service = request.service ?? (parsed === undefined ? undefined : detectService(parsed.nsn));
  if (account === undefined || service === undefined) return { kind: "service_undetectable", account: request.account };

  const shortcode = request.shortcode ?? null;
  if (!customer.wallets.some((wallet) => wallet.shortcode === shortcode)) {
    return { kind: "unknown_shortcode", shortcode: request.shortcode ?? "" };
  }
  return {
    kind: "normalised",
    fingerprint: {
      account,
      service,
      amountCents: request.amountCents,
      currency: request.currency,
      reference: request.reference,
      shortcode,
    },
  };
}
