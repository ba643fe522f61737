/**
 * Ids for orders, customers and messages. Random ids come from the injected
 * seeded source so a run replays with the same ids; sequential ids make test
 * output readable.
 */
import { flatString } from "./flat-string.ts";
import type { Ids, Random } from "./ports.ts";
import { randomInt } from "./random.ts";

/** Crockford's base32 alphabet, lower-cased: no i, l, o, u, so ids read back unambiguously. */
export const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Random characters in an id (20 × 5 bits = 100 bits). */
const ID_RANDOM_LENGTH = 20;

/** `length` base32 characters drawn from `random`. */
export function randomBase32(random: Random, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += ID_ALPHABET[randomInt(random, 32)];
  return flatString(text);
}

/**
 * Ids of the form `<prefix>_<20 base32 characters>`.
 *
 * @example
 * const ids = createIds(createSeededRandom(7));
 * ids.next("ord"); // "ord_" + 20 characters, the same for every run with seed 7
 */
export function createIds(random: Random): Ids {
  return {
    next: (prefix) => flatString(`${prefix}_${randomBase32(random, ID_RANDOM_LENGTH)}`),
  };
}

/**
 * Readable ids for tests: one counter per prefix (`ord_1`, `ord_2`, `cus_1`, …).
 *
 * @example
 * const ids = createSequentialIds();
 * ids.next("ord"); // "ord_1"
 * ids.next("ord"); // "ord_2"
 */
export function createSequentialIds(): Ids {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
}
