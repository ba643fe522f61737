/**
 * `POST /v1/airtime` after authentication, top to bottom: validate → resolve
 * the idempotency key → scenario effects → domain → response. Injected
 * failures happen either before anything is committed or after the order
 * exists, which is exactly the case idempotency keys exist for.
 */
import type { Request, Response } from "express";
import { detectService, parseKenyanMobile } from "../contract/operators.ts";
import type { OrderLimits } from "../contract/public-schemas.ts";
import type { Order } from "../domain/model.ts";
import type { AirtimeService, PlaceOrderCommand, PlaceOrderOutcome } from "../domain/service-types.ts";
import { NO_EFFECTS, type RequestFacts, type ResolvedEffects, type ScenarioEngine } from "../domain/scenario-engine.ts";
import { customerOf } from "./auth.ts";
import { HttpProblem } from "./http-problem.ts";
import type { IdempotencyOutcome } from "./journal.ts";
import { resolveIdempotencyKey } from "./idempotency-key.ts";
import { sendJson } from "./json-response.ts";
import { presentInsufficient, presentOrder } from "./presenters.ts";
import { requestState } from "./request-context.ts";
import { evaluateAll, realDelay, writeFailure } from "./scenario-effects.ts";
import { createSendAirtimeParser, type SendAirtimeInput } from "./send-airtime-request.ts";

export interface PlaceOrderDeps {
  readonly service: AirtimeService;
  readonly limits: OrderLimits;
  readonly scenarioEngines: readonly ScenarioEngine[];
  /** Every plugin's `beforeResponse`, awaited when the order asks for its webhook first. */
  readonly beforeResponse: (order: Order) => Promise<void>;
}

function headerFacts(req: Request): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  const incoming = req.headers;
  // Own keys only, without building an [name, value] array per header (this runs on every order).
  for (const name of Object.keys(incoming)) {
    if (name === "authorization" || name === "cookie") continue;
    const value = incoming[name];
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function requestFacts(
  req: Request,
  customerId: string,
  input: SendAirtimeInput,
  key: string | undefined,
): RequestFacts {
  const parsed = parseKenyanMobile(input.account);
  const service = input.service ?? (parsed === undefined ? undefined : detectService(parsed.nsn));
  const scenario = req.headers["x-sim-scenario"];
  return {
    customerId,
    account: parsed?.e164 ?? input.account,
    ...(service === undefined ? {} : { service }),
    amountCents: input.amountCents,
    reference: input.reference,
    ...(key === undefined ? {} : { idempotencyKey: key }),
    headers: headerFacts(req),
    ...(typeof scenario === "string" ? { requestedScenario: scenario } : {}),
  };
}

function toCommand(
  customerId: string,
  input: SendAirtimeInput,
  key: string | undefined,
  effects: ResolvedEffects,
): PlaceOrderCommand {
  return {
    customerId,
    request: {
      ...(input.service === undefined ? {} : { service: input.service }),
      account: input.account,
      amountCents: input.amountCents,
      currency: input.currency,
      reference: input.reference,
      ...(input.shortcode === undefined ? {} : { shortcode: input.shortcode }),
      ...(key === undefined ? {} : { idempotencyKey: key }),
    },
    ...(effects.plan === undefined ? {} : { plan: effects.plan }),
    ...(effects.forceInsufficient === undefined ? {} : { forceInsufficient: effects.forceInsufficient }),
    ...(effects.webhookFaults === undefined ? {} : { webhookFaults: effects.webhookFaults }),
  };
}

/** Every outcome of the domain, as HTTP. Exhaustive: a new outcome kind does not compile until mapped. */
function writeOutcome(res: Response, outcome: PlaceOrderOutcome): void {
  switch (outcome.kind) {
    case "placed":
      sendJson(res, 200, presentOrder(outcome.order));
      return;
    case "replayed":
      res.setHeader("Idempotent-Replayed", "true");
      sendJson(res, 200, presentOrder(outcome.order));
      return;
    case "insufficient_balance":
      sendJson(res, 402, presentInsufficient(outcome.reference));
      return;
    case "payload_mismatch":
      throw new HttpProblem(
        "idempotency_payload_mismatch",
        "This idempotency key was used with a different payload; use a new key for a new order.",
      );
    case "duplicate_reference":
      throw new HttpProblem(
        "duplicate_reference",
        `The reference ${JSON.stringify(outcome.reference)} is already used by another order.`,
      );
    case "service_undetectable":
      throw new HttpProblem(
        "service_undetectable",
        `No operator of the five owns the prefix of ${outcome.account}; send \`service\` explicitly.`,
        { errors: [{ pointer: "#/account", detail: "prefix not owned by safaricom, airtel, telkom, jtl or equitel" }] },
      );
    case "unknown_shortcode":
      throw new HttpProblem(
        "unknown_shortcode",
        `The shortcode ${JSON.stringify(outcome.shortcode)} is not one of this customer's wallets.`,
        { errors: [{ pointer: "#/shortcode", detail: "unknown shortcode" }] },
      );
    default: {
      const unreachable: never = outcome;
      throw new Error(`unmapped outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

function idempotencyOf(outcome: PlaceOrderOutcome): IdempotencyOutcome | undefined {
  switch (outcome.kind) {
    case "placed":
      return "new";
    case "replayed":
      return "replayed";
    case "payload_mismatch":
      return "mismatch";
    default:
      return undefined;
  }
}

function orderOf(outcome: PlaceOrderOutcome): Order | undefined {
  return outcome.kind === "placed" || outcome.kind === "replayed" ? outcome.order : undefined;
}

export function createPlaceOrderHandler(deps: PlaceOrderDeps) {
  const parse = createSendAirtimeParser(deps.limits);
  return async (req: Request, res: Response): Promise<void> => {
    const customer = customerOf(res);
    const input = parse(req.body);
    const header = req.headers["idempotency-key"];
    const key = resolveIdempotencyKey(typeof header === "string" ? header : undefined, input.bodyKey);
    const effects =
      deps.scenarioEngines.length === 0
        ? NO_EFFECTS
        : await evaluateAll(deps.scenarioEngines, requestFacts(req, customer.id, input, key));
    requestState(res).fired = effects.fired;
    if (effects.rejection !== undefined) throw new HttpProblem(effects.rejection.code, effects.rejection.detail);

    if (effects.beforeCommit !== undefined) {
      await realDelay(effects.latencyMs);
      writeFailure(res, effects.beforeCommit, false);
      return;
    }
    const outcome = await deps.service.placeOrder(toCommand(customer.id, input, key, effects));
    if (key !== undefined) requestState(res).idempotency = idempotencyOf(outcome);
    const order = orderOf(outcome);
    if (outcome.kind === "placed" && outcome.order.webhookFaults?.beforeResponse === true) {
      await deps.beforeResponse(outcome.order);
    }
    if (effects.latencyMs !== undefined) await realDelay(effects.latencyMs);
    if (order !== undefined && effects.afterCommit !== undefined) {
      writeFailure(res, effects.afterCommit, true);
      return;
    }
    writeOutcome(res, outcome);
  };
}
