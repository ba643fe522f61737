/**
 * The open-ended parts of an order the model generates: how its reference
 * and idempotency key end, and which optional fields it carries. They cover
 * the whole input domain — spaces, `/`, `%`, `?`, `#`, `+`, non-ASCII, and
 * lengths at the bounds — so a target that mishandles any of them (a path
 * it does not percent-decode, a key it truncates) is met, not missed.
 */
import fc from "fast-check";
import type { CompiledDomain } from "../../contract/provider-profile/compile.ts";
import { IDEMPOTENCY_KEY_PATTERN, REFERENCE_MAX_LENGTH } from "../../contract/public-schemas.ts";

/** Longest idempotency key the interface allows (§4.4, §8). */
const KEY_MAX_LENGTH = 255;

export interface OrderShape {
  /** Appended to the run's unique reference. */
  readonly referenceTail: string;
  /** Pad the reference to exactly the longest allowed. */
  readonly referenceAtMax: boolean;
  /** Appended to the run's unique key (visible ASCII only: keys allow nothing else). */
  readonly keyTail: string;
  /** Pad the key to exactly the longest allowed. */
  readonly keyAtMax: boolean;
  /** Optional fields of the order (interface table 2.1). */
  readonly name?: string;
  readonly phone?: string;
}

const URL_SPECIALS = [" ", "/", "%", "?", "#", "+", "&", "=", ";", "%20", "%2F", "..", "é", "€", "ü", "漢", "😀"];
const KEY_SPECIALS = ["/", "%", "?", "#", "+", "&", "=", "%2F", '"', "\\", "~"];

/**
 * Our spec's whole input domain, or — when the provider profile states a
 * domain — values inside it (the optional fields in forms any provider takes;
 * references are fitted to its pattern by `shapeReference`).
 */
export function orderShapeArbitrary(domain: CompiledDomain | undefined): fc.Arbitrary<OrderShape> {
  return domain === undefined ? SPEC_SHAPES : DOMAIN_SHAPES;
}

const SPEC_SHAPES: fc.Arbitrary<OrderShape> = fc.record(
  {
    referenceTail: fc.oneof(
      { weight: 2, arbitrary: fc.constant("") },
      { weight: 2, arbitrary: fc.constantFrom(...URL_SPECIALS.map((special) => `-${special}x`)) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...URL_SPECIALS, "a", "Z", "9"), maxLength: 6 }) },
    ),
    referenceAtMax: fc.boolean(),
    keyTail: fc.oneof(
      { weight: 2, arbitrary: fc.constant("") },
      { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...KEY_SPECIALS, "a", "9"), maxLength: 6 }) },
    ),
    keyAtMax: fc.boolean(),
    name: fc.constantFrom("Wanjiku", "Otieno", "Zoë", "Ng'ang'a"),
    phone: fc.constantFrom("0712000999", "+254733000888"),
  },
  { requiredKeys: ["referenceTail", "referenceAtMax", "keyTail", "keyAtMax"] },
);

const DOMAIN_SHAPES: fc.Arbitrary<OrderShape> = SPEC_SHAPES.map((shape) => ({
  ...shape,
  ...(shape.name === undefined ? {} : { name: shape.name.replace(/[^A-Za-z]/g, "") }),
  ...(shape.phone === undefined ? {} : { phone: "0712000999" }),
}));

/**
 * The order's reference: unique `base`, the tail, padded to the maximum when
 * asked. Inside a profile's domain, the longest form that fits its pattern
 * and length (the base alone at worst: letters, digits and dashes).
 */
export function shapeReference(base: string, shape: OrderShape | undefined, domain?: CompiledDomain): string {
  const reference = `${base}${shape?.referenceTail ?? ""}`;
  const max = domain?.referenceMaxLength ?? REFERENCE_MAX_LENGTH;
  const padded = shape?.referenceAtMax === true ? reference.padEnd(max, "r") : reference;
  if (domain === undefined) return padded;
  const fits = (candidate: string) => candidate.length <= max && domain.referencePattern.test(candidate);
  return [padded, reference, base].find(fits) ?? referenceInDomain(domain, base);
}

/** The order's key: unique `base`, the tail, padded to the maximum when asked; always a valid key. */
export function shapeKey(base: string, shape: OrderShape | undefined): string {
  const key = `${base}${shape?.keyTail ?? ""}`;
  const shaped = shape?.keyAtMax === true ? key.padEnd(KEY_MAX_LENGTH, "k") : key;
  return IDEMPOTENCY_KEY_PATTERN.test(shaped) ? shaped : base;
}

/** A small, stable number from a text, to seed a draw that must repeat for the same text. */
function seedOf(text: string): number {
  let hash = 0;
  for (const char of text) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return hash;
}

/**
 * A reference the domain accepts: `base` cut to the longest allowed when
 * that matches the pattern, else one drawn from the pattern itself (a
 * provider that takes only `^TX[0-9]{10}$` refuses every reference of ours).
 * The draw is seeded by `base`, so the same base gives the same reference
 * and a new base a new one; of a few drawn, the longest is kept, as the
 * least likely to meet a reference already used.
 *
 * @example
 * referenceInDomain({ referencePattern: /^TX[0-9]{10}$/u, referenceMaxLength: 12 }, "pc-1a2b"); // "TX4093817265"
 */
export function referenceInDomain(
  domain: Pick<CompiledDomain, "referencePattern" | "referenceMaxLength">,
  base: string,
): string {
  const { referencePattern: pattern, referenceMaxLength: maxLength } = domain;
  const cut = base.slice(0, maxLength);
  if (pattern.test(cut)) return cut;
  const drawn = fc.sample(fc.stringMatching(pattern, { maxLength }), { numRuns: 8, seed: seedOf(base) });
  const fitting = drawn.filter((reference) => reference.length <= maxLength && pattern.test(reference));
  return fitting.reduce((longest, reference) => (reference.length > longest.length ? reference : longest), cut);
}
