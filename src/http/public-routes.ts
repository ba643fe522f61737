/**
 * The public API's routes: the interface's three endpoints and the
 * provider-like token endpoint. Each route authenticates first, then does its
 * work; known paths with another method answer 405 with `Allow`.
 */
import { type Request, type RequestHandler, type Response, Router } from "express";
import type { TokenResponse } from "../contract/public-schemas.ts";
import { REFERENCE_PARAMETER } from "../contract/routes/public-routes.ts";
import type { Customer } from "../domain/model.ts";
import { createCustomerAuth, createRequestAuthenticator, customerOf } from "./auth.ts";
import { HttpProblem } from "./http-problem.ts";
import { createPlaceOrderHandler, type PlaceOrderDeps } from "./place-order.ts";
import { presentBalance, presentTransaction } from "./presenters.ts";
import { requestState } from "./request-context.ts";

export interface PublicApiDeps extends PlaceOrderDeps {
  /** Checks HTTP Basic credentials and issues an expiring token, or undefined when they are wrong. */
  readonly issueToken: (customerId: string, apiKey: string) => Promise<TokenResponse | undefined>;
}

export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowed.includes("GET") ? [...allowed, "HEAD"] : [...allowed];
  return (req) => {
    throw new HttpProblem("method_not_allowed", `${req.method} is not allowed here; use ${allow.join(" or ")}.`, {
      headers: { Allow: allow.join(", ") },
    });
  };
}

function invalidClient(detail: string): HttpProblem {
  return new HttpProblem("invalid_client", detail, { headers: { "WWW-Authenticate": 'Basic realm="airtime"' } });
}

function basicCredentials(header: string | undefined): { id: string; secret: string } {
  const match = header === undefined ? null : /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(header);
  if (match?.[1] === undefined) throw invalidClient("Send Authorization: Basic base64(customerId:apiKey).");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw invalidClient("The Basic credentials must be customerId:apiKey.");
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export interface PublicRoutes {
  readonly router: Router;
  /**
   * `POST /v1/airtime` as one function (authenticate, then place the order),
   * the same work the router's route does: the entry pipeline calls it
   * directly for the hot path instead of walking the router to it.
   */
  readonly placeOrder: (req: Request, res: Response) => Promise<void>;
}

export function createPublicRoutes(deps: PublicApiDeps): PublicRoutes {
  const router = Router({ caseSensitive: true, strict: false });
  const authenticate = (token: string) => deps.service.authenticate(token);
  const auth = createCustomerAuth(authenticate);
  const authenticateRequest = createRequestAuthenticator(authenticate);
  const placeOrderHandler = createPlaceOrderHandler(deps);
  const placeOrder = async (req: Request, res: Response): Promise<void> => {
    await authenticateRequest(req, res);
    await placeOrderHandler(req, res);
  };

  router.post("/v1/airtime", auth, placeOrderHandler);
  router.all("/v1/airtime", methodNotAllowed(["POST"]));

  router.get("/v1/airtime/:reference", auth, async (req, res) => {
    const customer: Customer = customerOf(res);
    const reference = req.params.reference as string;
    const valid = REFERENCE_PARAMETER.safeParse(reference);
    if (!valid.success) {
      // No order can carry a reference that breaks the rules: say why rather than only "not found".
      const errors = valid.error.issues.slice(0, 3).map((issue) => ({ pointer: "#/reference", detail: issue.message }));
      throw new HttpProblem("validation_failed", `The reference is not valid: ${errors[0]?.detail ?? "invalid"}.`, {
        errors,
      });
    }
    const found = await deps.service.findOrder(customer.id, reference);
    // Another customer's reference is indistinguishable from a missing one.
    if (found.kind === "not_found") throw new HttpProblem("not_found", "No order of yours has this reference.");
    if (found.kind === "evicted") {
      throw new HttpProblem(
        "order_evicted",
        `The order with this reference was evicted under the order cap; it ended with status ${found.evicted.status}.`,
      );
    }
    res.json(presentTransaction(found.order));
  });
  router.all("/v1/airtime/:reference", methodNotAllowed(["GET"]));

  router.get("/v1/balance", auth, async (req, res) => {
    const shortcode = req.query.shortcode;
    if (shortcode !== undefined && typeof shortcode !== "string") {
      throw new HttpProblem("validation_failed", "Send one `shortcode` query parameter.", {
        errors: [{ pointer: "#/shortcode", detail: "must be a single string" }],
      });
    }
    const outcome = await deps.service.getBalance(customerOf(res).id, shortcode === "" ? undefined : shortcode);
    switch (outcome.kind) {
      case "balance":
        res.json(presentBalance(outcome.wallet, outcome.wallets));
        return;
      case "unknown_shortcode":
        throw new HttpProblem(
          "unknown_shortcode",
          `The shortcode ${JSON.stringify(outcome.shortcode)} is not one of your wallets.`,
        );
      default: {
        const unreachable: never = outcome;
        throw new Error(`unmapped balance outcome ${JSON.stringify(unreachable)}`);
      }
    }
  });
  router.all("/v1/balance", methodNotAllowed(["GET"]));

  router.post("/v1/auth/token", async (req, res) => {
    const { id, secret } = basicCredentials(req.headers.authorization);
    const token = await deps.issueToken(id, secret);
    if (token === undefined) throw invalidClient("Unknown customer id or wrong API key.");
    requestState(res).customerId = id;
    res.setHeader("Cache-Control", "no-store");
    res.json(token);
  });
  router.all("/v1/auth/token", methodNotAllowed(["POST"]));

  return { router, placeOrder };
}
