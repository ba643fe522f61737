/**
 * The unguessable source for secrets (tokens, API keys, issued tokens): the
 * `Random` port on `node:crypto`. The domain never reads randomness itself;
 * the wiring hands it this source for secrets and the seeded one for
 * everything a seed must replay (ids, delays, failure coins).
 */
import { randomInt } from "node:crypto";
import type { Random } from "../domain/ports.ts";

const RANGE = 2 ** 32;

/**
 * Uniform numbers in [0, 1) from the operating system's CSPRNG.
 *
 * @example
 * const customers = createCustomerDirectory({ store, ids, clock, secrets: createCryptoRandom() });
 */
export function createCryptoRandom(): Random {
  return { next: () => randomInt(RANGE) / RANGE };
}
