/**
 * Kenyan mobile numbers: the four written forms, and which of the five
 * operators owns a number's prefix. The prefix table is data kept in one place
 * so a new block allocated by the regulator is a one-line change, and the
 * blocks and prefix ranges the documents and generators show are derived
 * from it. Source: libphonenumber carrier data for +254.
 */
export const SERVICES = ["safaricom", "airtel", "telkom", "jtl", "equitel"] as const;
export type Service = (typeof SERVICES)[number];

/** Operator by national significant number (9 digits), longest prefix wins. */
const OPERATOR_NSN_PATTERNS: Readonly<Record<Service, RegExp>> = {
  safaricom: /^(?:7(?:[0-2]\d|4[0-35689]|5[7-9]|6[89]|9\d)|1(?:1\d|4[0-5]|8\d))\d{6}$/,
  airtel: /^(?:7(?:3\d|5[0-6]|6[12]|8\d)|10[0-8])\d{6}$/,
  telkom: /^(?:77\d|120)\d{6}$/,
  jtl: /^747\d{6}$/,
  equitel: /^(?:76[3-6]|124)\d{6}$/,
};

/** Any Kenyan mobile NSN (libphonenumber's mobile pattern). */
const MOBILE_NSN_PATTERN = /^(?:1(?:0[0-8]|[18]\d|2[014]|30|4[0-5])|7\d\d)\d{6}$/;

/** The four forms: `+254712345678`, `254712345678`, `0712345678`, `712345678`. */
export const ACCOUNT_PATTERN = /^(?:\+254|254|0)?[17]\d{8}$/;

/** What `parseKenyanMobile` accepts, as one expression (a JSON Schema `pattern` can carry it). */
export const KENYAN_MOBILE_PATTERN = new RegExp(`^(?:\\+254|254|0)?${MOBILE_NSN_PATTERN.source.slice(1)}`);

export interface KenyanNumber {
  /** The 9-digit national significant number. */
  readonly nsn: string;
  /** `+254` followed by the NSN. */
  readonly e164: string;
}

export function parseKenyanMobile(input: string): KenyanNumber | undefined {
  if (!ACCOUNT_PATTERN.test(input)) return undefined;
  const nsn = input.slice(-9);
  if (!MOBILE_NSN_PATTERN.test(nsn)) return undefined;
  return { nsn, e164: `+254${nsn}` };
}

/** The operator that owns the number's prefix, or undefined when none of the five does. */
export function detectService(nsn: string): Service | undefined {
  for (const service of SERVICES) {
    if (OPERATOR_NSN_PATTERNS[service].test(nsn)) return service;
  }
  return undefined;
}

// The operator table above seen as prefixes: every mobile number block (the
// NSN's first three digits) and the operator owning it. Derived from the
// patterns rather than written twice, for the OpenAPI description and the
// test data generators.

export interface NsnBlock {
  /** The NSN's first three digits, e.g. `712`; the national prefix is `0` + block (`0712`). */
  readonly block: string;
  /** The owner, or undefined for a mobile block none of the five operators owns. */
  readonly service: Service | undefined;
}

/** Every block the operator patterns decide: all of them are three digits long. */
const BLOCK_SUFFIX = "000000";

/**
 * Every mobile NSN block (`100`–`199`, `700`–`799` that are mobile), in order.
 *
 * @example
 * MOBILE_NSN_BLOCKS.find((b) => b.block === "747"); // { block: "747", service: "jtl" }
 */
export const MOBILE_NSN_BLOCKS: readonly NsnBlock[] = ["1", "7"].flatMap((first) =>
  Array.from({ length: 100 }, (_, i) => `${first}${String(i).padStart(2, "0")}`)
    .filter((block) => MOBILE_NSN_PATTERN.test(block + BLOCK_SUFFIX))
    .map((block) => ({ block, service: detectService(block + BLOCK_SUFFIX) })),
);

/** The blocks of one operator (or, with `undefined`, those no operator of the five owns). */
export function blocksOf(service: Service | undefined): string[] {
  return MOBILE_NSN_BLOCKS.filter((b) => b.service === service).map((b) => b.block);
}

/**
 * National prefixes (`0` + block) with consecutive blocks joined into ranges.
 *
 * @example
 * nationalPrefixRanges(["700", "701", "702", "745"]); // ["0700–0702", "0745"]
 */
function nationalPrefixRanges(blocks: readonly string[]): string[] {
  const sorted = [...blocks].sort();
  const ranges: string[] = [];
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i];
    if (current !== undefined && Number(current) === Number(previous) + 1) continue;
    const first = sorted[start]!;
    ranges.push(first === previous ? `0${first}` : `0${first}–0${previous}`);
    start = i;
  }
  return ranges;
}

/** One line per operator, e.g. `safaricom: 0700–0729, 0740–0743, …`, then the blocks none owns. */
export function describeOperatorPrefixes(): string[] {
  return [
    ...SERVICES.map((service) => `${service}: ${nationalPrefixRanges(blocksOf(service)).join(", ")}`),
    `none of the five: ${nationalPrefixRanges(blocksOf(undefined)).join(", ")}`,
  ];
}
