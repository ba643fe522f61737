/**
 * What a provider accepts (a profile's `domain`), as the checks the
 * simulator runs on a send-airtime body after its own schema: the amount
 * range and decimals, the reference pattern and length, the account forms,
 * the services and the currency. Compiled once; a profile without a
 * `domain` section compiles to no rules at all.
 */
import { detectService, parseKenyanMobile } from "../operators.ts";
import type { CompiledDomain } from "./compile.ts";
import type { AccountFormat } from "./schema.ts";

/** The order as the simulator parsed it. */
export interface OrderToCheck {
  readonly account: string;
  readonly amountCents: number;
  readonly reference: string;
  readonly currency: string;
  readonly service?: string | undefined;
}

/** One refused field: its JSON pointer in the body (`#/amount`) and why. */
export interface DomainIssue {
  readonly pointer: string;
  readonly detail: string;
}

export type DomainRules = (order: OrderToCheck) => readonly DomainIssue[];

/** How each account form is written (the national number's 9 digits start with 1 or 7). */
export const ACCOUNT_FORMS: Readonly<Record<AccountFormat, RegExp>> = {
  local: /^0[17]\d{8}$/,
  international: /^254[17]\d{8}$/,
  e164: /^\+254[17]\d{8}$/,
  short: /^[17]\d{8}$/,
};

/**
 * @example
 * const rules = compileDomainRules(compileProfile(file).domain);
 * rules({ account: "0712345678", amountCents: 1050, reference: "r-1", currency: "KES" });
 * // [{ pointer: "#/amount", detail: "must be a whole number" }] with decimals: 0
 */
export function compileDomainRules(domain: CompiledDomain): DomainRules {
  const forms = domain.accounts.map((form) => ACCOUNT_FORMS[form]);
  const centsStep = 10 ** (2 - domain.decimals);
  const services = new Set<string>(domain.services);
  const minCents = Math.round(domain.minAmount * 100);
  const maxCents = Math.round(domain.maxAmount * 100);
  return (order) => {
    const issues: DomainIssue[] = [];
    if (order.amountCents < minCents || order.amountCents > maxCents) {
      issues.push({ pointer: "#/amount", detail: `must be within ${domain.minAmount}–${domain.maxAmount}` });
    } else if (order.amountCents % centsStep !== 0) {
      const detail = domain.decimals === 0 ? "must be a whole number" : `must have at most ${domain.decimals} decimals`;
      issues.push({ pointer: "#/amount", detail });
    }
    if (order.reference.length > domain.referenceMaxLength || !domain.referencePattern.test(order.reference)) {
      const detail = `must match ${domain.referencePattern.source}, at most ${domain.referenceMaxLength} characters`;
      issues.push({ pointer: "#/reference", detail });
    }
    if (!forms.some((form) => form.test(order.account))) {
      issues.push({ pointer: "#/account", detail: `must be written as one of: ${domain.accounts.join(", ")}` });
    }
    const nsn = parseKenyanMobile(order.account)?.nsn;
    const service = order.service ?? (nsn === undefined ? undefined : detectService(nsn));
    if (service !== undefined && !services.has(service)) {
      issues.push({ pointer: "#/service", detail: `must be one of ${domain.services.join(", ")}` });
    }
    if (order.currency !== domain.currency)
      issues.push({ pointer: "#/currency", detail: `must be ${domain.currency}` });
    return issues;
  };
}
