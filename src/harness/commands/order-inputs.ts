/**
 * The open-ended parts of an order the model generates: how its reference
 * and idempotency key end, and which optional fields it carries. They cover
 * the whole input domain — spaces, `/`, `%`, `?`, `#`, `+`, non-ASCII, and
 * lengths at the bounds — so a target that mishandles any of them (a path
 * it does not percent-decode, a key it truncates) is met, not missed.
 */
import fc from "fast-check";
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

export const orderShapeArbitrary: fc.Arbitrary<OrderShape> = fc.record(
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

/** The order's reference: unique `base`, the tail, padded to the maximum when asked. */
export function shapeReference(base: string, shape: OrderShape | undefined): string {
  const reference = `${base}${shape?.referenceTail ?? ""}`;
  return shape?.referenceAtMax === true ? reference.padEnd(REFERENCE_MAX_LENGTH, "r") : reference;
}

/** The order's key: unique `base`, the tail, padded to the maximum when asked; always a valid key. */
export function shapeKey(base: string, shape: OrderShape | undefined): string {
  const key = `${base}${shape?.keyTail ?? ""}`;
  const shaped = shape?.keyAtMax === true ? key.padEnd(KEY_MAX_LENGTH, "k") : key;
  return IDEMPOTENCY_KEY_PATTERN.test(shaped) ? shaped : base;
}
