/**
 * Account and amount matchers, property-tested: a rule written against any
 * written form of a number matches that number, and nothing else. Each
 * property is also run against a deliberately broken matcher and must find
 * a counterexample.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { toCents } from "../../src/contract/money.ts";
import { createAccountMatcher, createRuleMatcher, type FactsMatcher } from "../../src/scenarios/matcher.ts";
import type { AccountMatch, RuleMatch } from "../../src/scenarios/schema.ts";
import { facts } from "./engine-helpers.ts";

/** A Kenyan mobile NSN: 7xx xxx xxx or 1[01]x xxx xxx. */
const nsnArb = fc
  .tuple(
    fc.constantFrom("70", "71", "72", "73", "74", "75", "76", "77", "78", "79", "10", "11"),
    fc.stringMatching(/^\d{7}$/),
  )
  .map(([head, tail]) => `${head}${tail}`);

const writtenForms = (nsn: string) => [`+254${nsn}`, `254${nsn}`, `0${nsn}`, nsn];

type AccountMatcherFactory = (match: AccountMatch) => FactsMatcher;

/** Broken: compares prefixes with the E.164 form only, forgetting the national form. */
const e164OnlyMatcher: AccountMatcherFactory = (match) => {
  if ("prefix" in match) return (f) => f.account.startsWith(match.prefix);
  return createAccountMatcher(match);
};

function prefixProperty(factory: AccountMatcherFactory) {
  return fc.property(nsnArb, nsnArb, fc.nat({ max: 8 }), fc.boolean(), (nsn, other, cut, national) => {
    const written = national ? `0${nsn}` : `+254${nsn}`;
    const prefix = written.slice(0, (national ? 2 : 5) + cut);
    const matcher = factory({ prefix });
    // The simulator hands the engine E.164 accounts.
    expect(matcher(facts({ account: `+254${nsn}` }))).toBe(true);
    const otherWritten = national ? `0${other}` : `+254${other}`;
    expect(matcher(facts({ account: `+254${other}` }))).toBe(otherWritten.startsWith(prefix));
  });
}

describe("account matchers", () => {
  test("a prefix in E.164 or national form matches exactly the numbers that start with it", () => {
    fc.assert(prefixProperty(createAccountMatcher), { numRuns: 100, seed: 1 });
  });

  test("the prefix property catches a matcher that ignores the national form", () => {
    const result = fc.check(prefixProperty(e164OnlyMatcher), { numRuns: 100, seed: 1 });
    expect(result.failed).toBe(true);
    expect(String(result.counterexample?.[3])).toBe("true");
  });

  test("an exact number written in any of the four forms matches that number only", () => {
    fc.assert(
      fc.property(nsnArb, nsnArb, fc.nat({ max: 3 }), (nsn, other, form) => {
        const matcher = createAccountMatcher({ exact: writtenForms(nsn)[form] as string });
        expect(matcher(facts({ account: `+254${nsn}` }))).toBe(true);
        expect(matcher(facts({ account: `+254${other}` }))).toBe(other === nsn);
      }),
      { numRuns: 100, seed: 2 },
    );
  });

  test("a regex is tried against the E.164 and the national form", () => {
    const matcher = createAccountMatcher({ regex: "^07(?:0|1)" });
    expect(matcher(facts({ account: "+254712345678" }))).toBe(true);
    expect(createAccountMatcher({ regex: "^\\+2547" })(facts({ account: "+254712345678" }))).toBe(true);
    expect(matcher(facts({ account: "+254733345678" }))).toBe(false);
  });
});

type RuleMatcherFactory = (match: RuleMatch) => FactsMatcher;

/** Broken: an exclusive upper bound (an off-by-one QA would only notice at the boundary). */
const exclusiveMaxMatcher: RuleMatcherFactory = (match) => {
  const max = match.amount?.max;
  return (f) => (max === undefined || f.amountCents < toCents(max)) && createRuleMatcher(match)(f);
};

function amountProperty(factory: RuleMatcherFactory) {
  const cents = fc.integer({ min: 1_000, max: 1_000_000 });
  return fc.property(cents, cents, cents, (a, b, amount) => {
    const [min, max] = a <= b ? [a, b] : [b, a];
    const matcher = factory({ amount: { min: min / 100, max: max / 100 } });
    for (const candidate of [amount, min, max]) {
      expect(matcher(facts({ amountCents: candidate }))).toBe(candidate >= min && candidate <= max);
    }
  });
}

describe("amount ranges (KES, inclusive)", () => {
  test("an amount matches exactly when it lies within [min, max], bounds included", () => {
    fc.assert(amountProperty(createRuleMatcher), { numRuns: 100, seed: 3 });
  });

  test("the amount property catches an exclusive upper bound", () => {
    expect(fc.check(amountProperty(exclusiveMaxMatcher), { numRuns: 100, seed: 3 }).failed).toBe(true);
  });
});

describe("the other conditions", () => {
  test("service, reference, customer and header must all hold", () => {
    const matcher = createRuleMatcher({
      service: ["airtel", "telkom"],
      reference: "^QA-",
      customer: "acme",
      header: { name: "X-Test-Case", matches: "^refund" },
    });
    const base = facts({ service: "airtel", reference: "QA-1", headers: { "x-test-case": "refund-42" } });
    expect(matcher(base)).toBe(true);
    expect(matcher({ ...base, service: "safaricom" })).toBe(false);
    expect(matcher({ ...base, reference: "PROD-1" })).toBe(false);
    expect(matcher({ ...base, customerId: "other" })).toBe(false);
    expect(matcher({ ...base, headers: {} })).toBe(false);
    expect(createRuleMatcher({ header: { name: "X-Env", equals: "qa" } })(facts({ headers: { "x-env": "qa" } }))).toBe(
      true,
    );
  });
});
