/**
 * What stands before the foreign provider's API (§5 and §8 leave both open):
 * OAuth client-credentials tokens that expire, and a per-second request cap.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TokenIssuer {
  /** A new token for the customer whose credentials these are (HTTP Basic), or undefined. */
  issue(authorization: string | undefined): { readonly token: string; readonly expiresInMs: number } | undefined;
  /** A token for a customer, as a provider's dashboard hands one out; it lives `lifetimeMs` (default: the issuer's). */
  issueFor(customerId: string, lifetimeMs?: number): string;
  /** The customer a live token belongs to; an expired or unknown token has none. */
  customerOf(token: string): string | undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function createTokenIssuer(
  credentials: ReadonlyMap<string, ClientCredentials>,
  lifetimeMs: number,
): TokenIssuer {
  const tokens = new Map<string, { readonly customerId: string; readonly expiresAt: number }>();

  function issueFor(customerId: string, life = lifetimeMs): string {
    const token = `fa_${randomBytes(18).toString("base64url")}`;
    tokens.set(token, { customerId, expiresAt: Date.now() + life });
    return token;
  }

  return {
    issue(authorization) {
      const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? "")?.[1];
      if (basic === undefined) return undefined;
      const decoded = Buffer.from(basic, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon < 0) return undefined;
      const [clientId, clientSecret] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
      for (const [customerId, known] of credentials) {
        if (sameText(known.clientId, clientId) && sameText(known.clientSecret, clientSecret)) {
          return { token: issueFor(customerId), expiresInMs: lifetimeMs };
        }
      }
      return undefined;
    },
    issueFor,
    customerOf(token) {
      const entry = tokens.get(token);
      if (entry === undefined) return undefined;
      if (Date.now() >= entry.expiresAt) {
        tokens.delete(token);
        return undefined;
      }
      return entry.customerId;
    },
  };
}

export interface RateLimiter {
  /** Counts a request: undefined when it may pass, else the seconds to wait (`Retry-After`). */
  admit(): number | undefined;
  /** How many requests it has answered 429. */
  readonly refused: number;
}

/** At most `perSecond` requests in each wall-clock second; the rest wait for the next one. */
export function createRateLimiter(perSecond: number): RateLimiter {
  let window = 0;
  let count = 0;
  let refused = 0;
  return {
    get refused() {
      return refused;
    },
    admit() {
      const now = Date.now();
      const current = Math.floor(now / 1000);
      if (current !== window) {
        window = current;
        count = 0;
      }
      count += 1;
      if (count <= perSecond) return undefined;
      refused += 1;
      return 1;
    },
  };
}
