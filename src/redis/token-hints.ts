/**
 * Which customer a bearer token belonged to the last time this process
 * looked, so the next request with it reads that customer at once instead
 * of asking the token index first: one round trip instead of two.
 *
 * A hint is never trusted on its own. The customer's record (for a static
 * token: its `tokens`; for an issued token: the issued entry, read in the
 * same round trip) decides, and a hint it contradicts is dropped and the
 * index asked. Another instance changing or moving a token therefore never
 * makes this one accept a token it should refuse, or refuse one it should
 * accept.
 */

/** Tokens remembered at most; the oldest are forgotten first. */
const MAX_HINTS = 10_000;

export interface TokenHints {
  /** The customer a token digest last belonged to, if remembered. */
  get(digest: string): string | undefined;
  remember(digest: string, customerId: string): void;
  forget(digest: string): void;
}

export function createTokenHints(max = MAX_HINTS): TokenHints {
  const owners = new Map<string, string>();
  return {
    get: (digest) => owners.get(digest),
    remember(digest, customerId) {
      owners.delete(digest);
      owners.set(digest, customerId);
      if (owners.size > max) owners.delete(owners.keys().next().value as string);
    },
    forget(digest) {
      owners.delete(digest);
    },
  };
}
