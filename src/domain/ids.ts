/**
 * The seeded random source and the ids drawn from it: ids for orders,
 * customers and messages. Random ids come from the injected seeded source so
 * a run replays with the same ids; sequential ids make test output readable.
 * Ids, like the other strings a stored order keeps, are made flat.
 */
import type { Ids, Random } from "./ports.ts";

// Memory for strings kept as long as an order lives.
//
// V8 keeps a string built by concatenation (`a + b`, a template, a loop of
// `+=`, `JSON.stringify` of more than a few dozen characters) as a tree of
// its pieces until something reads it as a whole. A 20-character id built
// one character at a time takes about 320 bytes that way, against about 50
// once flat. Reading one character makes V8 flatten the string in place (the
// garbage collector then drops the tree), so ids, fingerprints and keys that
// the store keeps for every order are flattened once, when made.

/**
 * The same string, flattened in memory. Not observable otherwise.
 *
 * @example
 * const id = flatString(`ord_${randomBase32(random, 20)}`);
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}

// Seeded randomness. The simulator draws every random choice (ids, delays,
// failure coins) from one injected source, so a seed replays a run exactly.
//
// The generator is sfc32 (Chris Doty-Humphrey's Small Fast Counting
// generator, from PractRand): 128 bits of state, passes PractRand and
// TestU01's BigCrush, and needs only 32-bit integer operations, which
// JavaScript does natively. Its four state words are filled from the seed
// with splitmix32 so that nearby seeds (1, 2, 3 …) give unrelated streams.
// It is not cryptographic: secrets that must resist guessing come from the
// injected `secrets` source (`node:crypto` in the simulator), never from here.

/** splitmix32: a well-mixed 32-bit stream used only to expand the seed. */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * A uniform source in [0, 1) that yields the same sequence for the same seed.
 * Only the low 32 bits of the seed count (`seed >>> 0`).
 *
 * @example
 * const a = createSeededRandom(42);
 * const b = createSeededRandom(42);
 * a.next() === b.next(); // true
 */
export function createSeededRandom(seed: number): Random {
  if (!Number.isFinite(seed)) throw new RangeError("a seed must be a finite number");
  const expand = splitmix32(Math.trunc(seed));
  // The state lives in a typed array, which stores each word modulo 2³² as it is: in closure variables
  // the words above 2³¹ were boxed numbers, one allocation per word written, 20 draws per id.
  const state = new Uint32Array(4);
  for (let i = 0; i < 4; i++) state[i] = expand();

  function nextUint32(): number {
    const a = state[0] as number;
    const b = state[1] as number;
    const c = state[2] as number;
    const d = state[3] as number;
    const t = (((a + b) >>> 0) + d) >>> 0;
    state[3] = d + 1;
    state[0] = b ^ (b >>> 9);
    state[1] = c + (c << 3);
    state[2] = ((c << 21) | (c >>> 11)) + t;
    return t;
  }

  // A few rounds let the counter word spread into the others.
  for (let i = 0; i < 12; i++) nextUint32();

  return {
    next: () => nextUint32() / 4294967296,
  };
}

/** An integer in [0, bound) from a uniform source. */
function randomInt(random: Random, bound: number): number {
  return Math.floor(random.next() * bound);
}

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
