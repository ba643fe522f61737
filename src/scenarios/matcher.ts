/**
 * The stateless half of a rule's `match`: account, service, amount,
 * reference, customer and header. Attempt counters and probabilities need
 * state and live in the engine.
 */
import { toCents } from "../contract/money.ts";
import { parseKenyanMobile } from "../contract/operators.ts";
import type { RequestFacts } from "../domain/scenario-engine.ts";
import type { AccountMatch, RuleMatch } from "./schema.ts";

export type FactsMatcher = (facts: RequestFacts) => boolean;

const ALWAYS: FactsMatcher = () => true;

/**
 * The written forms an account matcher sees: E.164 (`+254712345678`) and
 * national (`0712345678`); an account that is not a Kenyan mobile number is
 * seen as written.
 */
function accountForms(account: string): readonly string[] {
  const parsed = parseKenyanMobile(account);
  return parsed === undefined ? [account] : [parsed.e164, `0${parsed.nsn}`];
}

/**
 * @example
 * createAccountMatcher({ prefix: "073" })({ account: "+254733000001", ... }); // true
 */
export function createAccountMatcher(match: AccountMatch): FactsMatcher {
  if ("exact" in match) {
    const wanted = parseKenyanMobile(match.exact)?.e164 ?? match.exact;
    return (facts) => (parseKenyanMobile(facts.account)?.e164 ?? facts.account) === wanted;
  }
  if ("prefix" in match) {
    // "254…" is the E.164 form written without its plus.
    const prefix = match.prefix.startsWith("254") ? `+${match.prefix}` : match.prefix;
    return (facts) => accountForms(facts.account).some((form) => form.startsWith(prefix));
  }
  const pattern = new RegExp(match.regex);
  return (facts) => accountForms(facts.account).some((form) => pattern.test(form));
}

/** All conditions of a `match` except `attempt`, `firstN` and `probability`; every given one must hold. */
export function createRuleMatcher(match: RuleMatch | undefined): FactsMatcher {
  if (match === undefined) return ALWAYS;
  const checks: FactsMatcher[] = [];
  if (match.account !== undefined) checks.push(createAccountMatcher(match.account));
  if (match.service !== undefined) {
    const services = new Set<string>(Array.isArray(match.service) ? match.service : [match.service]);
    checks.push((facts) => facts.service !== undefined && services.has(facts.service));
  }
  if (match.amount !== undefined) {
    const min = match.amount.min === undefined ? Number.NEGATIVE_INFINITY : toCents(match.amount.min);
    const max = match.amount.max === undefined ? Number.POSITIVE_INFINITY : toCents(match.amount.max);
    checks.push((facts) => facts.amountCents >= min && facts.amountCents <= max);
  }
  if (match.reference !== undefined) {
    const pattern = new RegExp(match.reference);
    checks.push((facts) => pattern.test(facts.reference));
  }
  if (match.customer !== undefined) {
    const customers = new Set(Array.isArray(match.customer) ? match.customer : [match.customer]);
    checks.push((facts) => customers.has(facts.customerId));
  }
  if (match.header !== undefined) {
    const name = match.header.name.toLowerCase();
    const { equals, matches } = match.header;
    const pattern = matches === undefined ? undefined : new RegExp(matches);
    checks.push((facts) => {
      const value = facts.headers[name];
      if (value === undefined) return false;
      return pattern === undefined ? value === equals : pattern.test(value);
    });
  }
  if (checks.length === 0) return ALWAYS;
  return (facts) => checks.every((check) => check(facts));
}
