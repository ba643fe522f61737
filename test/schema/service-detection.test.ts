import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { ACCOUNT_FORMS, formatAccount, nsnArbitrary } from "../../src/contract/arbitraries.ts";
import {
  describeOperatorPrefixes,
  detectService,
  MOBILE_NSN_BLOCKS,
  parseKenyanMobile,
  SERVICES,
  type Service,
} from "../../src/contract/operators.ts";

/**
 * The reference table of national prefixes (libphonenumber carrier data for
 * +254, release 9.0.35), written out by hand rather than derived from the
 * code under test.
 */
const REFERENCE_TABLE: Readonly<Record<Service | "none", readonly string[]>> = {
  safaricom: [
    "0700–0729",
    "0740–0743",
    "0745",
    "0746",
    "0748",
    "0749",
    "0757–0759",
    "0768",
    "0769",
    "0790–0799",
    "0110–0119",
    "0140–0145",
    "0180–0189",
  ],
  airtel: ["0730–0739", "0750–0756", "0761", "0762", "0780–0789", "0100–0108"],
  telkom: ["0770–0779", "0120"],
  jtl: ["0747"],
  equitel: ["0763–0766", "0124"],
  none: ["0121", "0130", "0744", "0760", "0767"],
};

function expand(entry: string): string[] {
  const [from, to = from] = entry.split("–") as [string, string?];
  const out: string[] = [];
  for (let n = Number(from); n <= Number(to); n++) out.push(`0${n}`);
  return out;
}

type Owner = Service | "none";
const ROWS: { prefix: string; owner: Owner }[] = (Object.keys(REFERENCE_TABLE) as Owner[]).flatMap((owner) =>
  REFERENCE_TABLE[owner].flatMap(expand).map((prefix) => ({ prefix, owner })),
);

/** Subscriber digits after the 4-digit prefix: the ends of the block and one in between. */
const SUFFIXES = ["000000", "999999", "482913"];

/** Every (number, expected, got) where `detect` disagrees with the table. */
function mismatches(detect: (account: string) => Service | undefined): string[] {
  const wrong: string[] = [];
  for (const { prefix, owner } of ROWS) {
    for (const suffix of SUFFIXES) {
      const got = detect(prefix + suffix) ?? "none";
      if (got !== owner) wrong.push(`${prefix}${suffix}: expected ${owner}, got ${got}`);
    }
  }
  return wrong;
}

function detectFromAccount(account: string): Service | undefined {
  const number = parseKenyanMobile(account);
  return number === undefined ? undefined : detectService(number.nsn);
}

describe("service detection follows the reference prefix table", () => {
  test("the table expands to 4-digit prefixes without overlaps", () => {
    const prefixes = ROWS.map((row) => row.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(prefixes.every((p) => /^0[17]\d\d$/.test(p))).toBe(true);
    // 100 blocks 070x–079x and 39 in 01xx: every mobile block of the numbering plan.
    expect(ROWS.length).toBe(139);
  });

  test.each(ROWS)("$prefix belongs to $owner", ({ prefix, owner }) => {
    for (const suffix of SUFFIXES) {
      const number = parseKenyanMobile(prefix + suffix);
      // Every prefix of the table is a mobile number, even those no operator of the five owns.
      expect(number?.nsn).toBe((prefix + suffix).slice(1));
      expect(detectService(number!.nsn) ?? "none").toBe(owner);
    }
  });

  test("no mobile block outside the table: every one the code knows is listed", () => {
    const listed = new Map(ROWS.map((row) => [row.prefix.slice(1), row.owner]));
    const known = MOBILE_NSN_BLOCKS.map((b) => [b.block, b.service ?? "none"] as const);
    expect(new Map(known)).toEqual(listed);
  });

  test("the prefix lines in the OpenAPI description are the table", () => {
    const lines = describeOperatorPrefixes();
    for (const owner of [...SERVICES, "none"] as const) {
      const line = lines.find((l) => l.startsWith(owner === "none" ? "none of the five:" : `${owner}:`));
      const listed = line!.split(": ")[1]!.split(", ").flatMap(expand).sort();
      expect(listed).toEqual(REFERENCE_TABLE[owner].flatMap(expand).sort());
    }
  });

  test("the table check catches the traps of older prefix lists", () => {
    expect(mismatches(detectFromAccount)).toEqual([]);
    // All of 076x as Equitel, all of 074x as Safaricom: both wrong.
    const trap = (account: string): Service | undefined =>
      /^076/.test(account) ? "equitel" : /^074/.test(account) ? "safaricom" : detectFromAccount(account);
    expect(mismatches(trap)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("0761"),
        expect.stringContaining("0747"),
        expect.stringContaining("0744"),
      ]),
    );
  });
});

const anyOwner = fc.constantFrom<Owner>(...SERVICES, "none").chain((owner) => nsnArbitrary(owner));

describe("the four written forms of one number", () => {
  test.prop([anyOwner], { numRuns: 100 })("detect the same operator", (nsn) => {
    const detected = ACCOUNT_FORMS.map((form) => detectFromAccount(formatAccount(nsn, form)));
    expect(new Set(detected).size).toBe(1);
    expect(detected[0]).toBe(detectService(nsn));
  });

  test.prop([anyOwner], { numRuns: 50 })("parse to the same E.164 number", (nsn) => {
    const parsed = ACCOUNT_FORMS.map((form) => parseKenyanMobile(formatAccount(nsn, form))?.e164);
    expect(parsed).toEqual(ACCOUNT_FORMS.map(() => `+254${nsn}`));
  });

  test("the property catches a parser that only strips the trunk 0", () => {
    const naive = (account: string) => detectService(account.replace(/^0/, "").replace(/^\+/, ""));
    const result = fc.check(
      fc.property(anyOwner, (nsn) => new Set(ACCOUNT_FORMS.map((form) => naive(formatAccount(nsn, form)))).size === 1),
      { numRuns: 100, seed: 7 },
    );
    expect(result.failed).toBe(true);
  });
});
