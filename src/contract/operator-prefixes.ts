/**
 * The operator table of `operators.ts` seen as prefixes: every mobile
 * number block (the NSN's first three digits) and the operator owning it.
 * Derived from the patterns rather than written twice, for the OpenAPI
 * description and the test data generators.
 */
import { detectService, MOBILE_NSN_PATTERN, SERVICES, type Service } from "./operators.ts";

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
