/**
 * Bearer authentication: a customer's static token, or a token issued by
 * `POST /v1/auth/token` that has not expired on the simulator clock.
 */
import type { Customer } from "./model.ts";
import type { Clock, Store } from "./ports.ts";

export interface CustomerAuthenticator {
  /** The customer the token belongs to, or undefined (unknown or expired token). */
  authenticate(token: string): Promise<Customer | undefined>;
}

export function createCustomerAuthenticator(deps: {
  readonly store: Store;
  readonly clock: Clock;
}): CustomerAuthenticator {
  return {
    async authenticate(token) {
      if (token.length === 0) return undefined;
      return (
        (await deps.store.findCustomerByToken(token)) ??
        (await deps.store.findCustomerByIssuedToken(token, deps.clock.now()))
      );
    },
  };
}
