/**
 * Bearer authentication for the public API and the admin API. Tokens are
 * compared in constant time (the store does it for customer tokens) and
 * never logged.
 */
import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { secretsEqual } from "../contract/signing.ts";
import type { Customer } from "../domain/model.ts";
import { type AdminThrottle, createAdminThrottle } from "./admin-throttle.ts";
import { HttpProblem } from "./http-problem.ts";
import type { RequestState } from "./request-context.ts";

const BEARER = /^Bearer[ ]+([\x21-\x7E]+)[ ]*$/i;

/** The bearer token, or a problem saying why there is none. */
function bearerToken(req: IncomingMessage): string {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw new HttpProblem("missing_token", "Send Authorization: Bearer <token>.", {
      headers: { "WWW-Authenticate": 'Bearer realm="airtime"' },
    });
  }
  const match = BEARER.exec(header);
  if (match?.[1] === undefined) {
    throw new HttpProblem("invalid_token", "The Authorization header is not a Bearer token.", {
      headers: { "WWW-Authenticate": 'Bearer realm="airtime", error="invalid_request"' },
    });
  }
  return match[1];
}

function invalidToken(): HttpProblem {
  return new HttpProblem("invalid_token", "The bearer token is unknown or has expired.", {
    headers: { "WWW-Authenticate": 'Bearer realm="airtime", error="invalid_token"' },
  });
}

/**
 * Authenticates a public request: the customer its bearer token belongs to,
 * kept on the request's state for the steps after it; throws the 401
 * problem otherwise.
 */
export async function authenticateRequest(
  state: RequestState,
  authenticate: (token: string) => Promise<Customer | undefined>,
): Promise<Customer> {
  const customer = await authenticate(bearerToken(state.req));
  if (customer === undefined) throw invalidToken();
  state.customer = customer;
  state.customerId = customer.id;
  return customer;
}

/**
 * The admin token guards `/_sim`. A valid customer token there is a 403
 * (authenticated, but not allowed), anything else a 401, counted against
 * the client's address: too many, and the address gets 429 for a while
 * (see `admin-throttle.ts`).
 */
export function createAdminAuth(
  adminToken: string,
  authenticate: (token: string) => Promise<Customer | undefined>,
  throttle: AdminThrottle = createAdminThrottle(),
): RequestHandler {
  return async (req, _res, next) => {
    // The socket's address, never a forwarded-for header a client could vary at will.
    const address = req.socket.remoteAddress ?? "unknown";
    const waitSeconds = throttle.retryAfterSeconds(address);
    if (waitSeconds > 0) {
      throw new HttpProblem(
        "too_many_attempts",
        `Too many failed admin authentications from this address; retry after ${waitSeconds} s.`,
        { headers: { "Retry-After": String(waitSeconds) } },
      );
    }
    const token = bearerToken(req);
    if (secretsEqual(token, adminToken)) {
      next();
      return;
    }
    if ((await authenticate(token)) !== undefined) {
      throw new HttpProblem("forbidden", "A customer token cannot use the admin API; use the admin token.");
    }
    throttle.recordFailure(address);
    throw invalidToken();
  };
}
