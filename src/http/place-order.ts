/**
 * `POST /v1/airtime` after authentication, top to bottom: validate → resolve
 * the idempotency key → scenario effects → domain → response. Injected
 * failures happen either before anything is committed or after the order
 * exists, which is exactly the case idempotency keys exist for.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { detectService, parseKenyanMobile } from "../contract/operators.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { OrderLimits } from "../contract/public-schemas.ts";
import type { Customer, Order } from "../domain/model.ts";
import type { AirtimeService, PlaceOrderCommand, PlaceOrderOutcome } from "../domain/service-types.ts";
import { NO_EFFECTS, type RequestFacts, type ResolvedEffects, type ScenarioEngine } from "../domain/scenario-engine.ts";
import { HttpProblem } from "./http-problem.ts";
import type { IdempotencyOutcome } from "./journal.ts";
import { resolveIdempotencyKey } from "./idempotency-key.ts";
import { presentInsufficient, presentOrder } from "./presenters.ts";
import { type RequestState, sendJson } from "./request-context.ts";
import { evaluateAll, realDelay, writeFailure } from "./scenario-effects.ts";
import { createSendAirtimeParser, type SendAirtimeInput } from "./send-airtime-request.ts";

export interface PlaceOrderDeps {
  readonly service: AirtimeService;
  readonly limits: OrderLimits;
  readonly scenarioEngines: readonly ScenarioEngine[];
  /** Every plugin's `beforeResponse`, awaited when the order asks for its webhook first. */
  readonly beforeResponse: (order: Order) => Promise<void>;
  /** Writes every public answer in the provider's dialect (our spec's by default). */
  readonly dialect: DialectRenderer;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function headerFacts(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  const incoming = req.headers;
  // Own keys only, without building an [name, value] array per header.
  for (const name of Object.keys(incoming)) {
    if (name === "authorization" || name === "cookie") continue;
    const value = incoming[name];
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function requestFacts(
  req: IncomingMessage,
  customerId: string,
  input: SendAirtimeInput,
  key: string | undefined,
): RequestFacts {
  const parsed = parseKenyanMobile(input.account);
  const service = input.service ?? (parsed === undefined ? undefined : detectService(parsed.nsn));
  const scenario = req.headers["x-sim-scenario"];
  const facts: Mutable<RequestFacts> = {
    customerId,
    account: parsed?.e164 ?? input.account,
    amountCents: input.amountCents,
    reference: input.reference,
    headers: headerFacts(req),
  };
  if (service !== undefined) facts.service = service;
  if (key !== undefined) facts.idempotencyKey = key;
  if (typeof scenario === "string") facts.requestedScenario = scenario;
  return facts;
}

/** Built field by field rather than by spreads: this runs for every order. */
function toCommand(
  customer: Customer,
  input: SendAirtimeInput,
  key: string | undefined,
  effects: ResolvedEffects,
): PlaceOrderCommand {
  const customerId = customer.id;
  const request: Mutable<PlaceOrderCommand["request"]> = {
    account: input.account,
    amountCents: input.amountCents,
    currency: input.currency,
    reference: input.reference,
  };
  if (input.service !== undefined) request.service = input.service;
  if (input.shortcode !== undefined) request.shortcode = input.shortcode;
  if (key !== undefined) request.idempotencyKey = key;
  if (effects === NO_EFFECTS) return { customerId, request, customer };
  const command: Mutable<PlaceOrderCommand> = { customerId, request, customer };
  if (effects.plan !== undefined) command.plan = effects.plan;
  if (effects.forceInsufficient !== undefined) command.forceInsufficient = effects.forceInsufficient;
  if (effects.webhookFaults !== undefined) command.webhookFaults = effects.webhookFaults;
  return command;
}

/** Every outcome of the domain, as HTTP. Exhaustive: a new outcome kind does not compile until mapped. */
function writeOutcome(res: ServerResponse, outcome: PlaceOrderOutcome, dialect: DialectRenderer): void {
  switch (outcome.kind) {
    case "placed":
      sendJson(res, 200, dialect.order(presentOrder(outcome.order)));
      return;
    case "replayed":
      res.setHeader("Idempotent-Replayed", "true");
      sendJson(res, 200, dialect.order(presentOrder(outcome.order)));
      return;
    case "insufficient_balance": {
      const answer = dialect.insufficient(presentInsufficient(outcome.reference));
      sendJson(res, answer.status, answer.body);
      return;
    }
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

/** `POST /v1/airtime` once authenticated: the parsed body is on the request's state. */
export function createPlaceOrderHandler(
  deps: PlaceOrderDeps,
): (state: RequestState, res: ServerResponse) => Promise<void> {
  const parse = createSendAirtimeParser(deps.limits);
  return async (state, res) => {
    const customer = state.customer as NonNullable<RequestState["customer"]>;
    const input = parse(state.body);
    const refused = deps.dialect.domainRules?.(input);
    if (refused !== undefined && refused.length > 0) {
      const detail = refused.map((issue) => `${issue.pointer}: ${issue.detail}`).join("; ");
      throw new HttpProblem("validation_failed", `The order is outside what this provider accepts — ${detail}.`, {
        errors: refused,
      });
    }
    const header = state.req.headers["idempotency-key"];
    const key = resolveIdempotencyKey(typeof header === "string" ? header : undefined, input.bodyKey);
    const effects =
      deps.scenarioEngines.length === 0
        ? NO_EFFECTS
        : await evaluateAll(deps.scenarioEngines, requestFacts(state.req, customer.id, input, key));
    state.fired = effects.fired;
    if (effects.rejection !== undefined) throw new HttpProblem(effects.rejection.code, effects.rejection.detail);

    if (effects.beforeCommit !== undefined) {
      await realDelay(effects.latencyMs);
      writeFailure(res, effects.beforeCommit, false, deps.dialect);
      return;
    }
    const outcome = await deps.service.placeOrder(toCommand(customer, input, key, effects));
    if (key !== undefined) state.idempotency = idempotencyOf(outcome);
    if (outcome.kind === "placed") state.placed = true;
    const order = orderOf(outcome);
    if (outcome.kind === "placed" && outcome.order.webhookFaults?.beforeResponse === true) {
      await deps.beforeResponse(outcome.order);
    }
    if (effects.latencyMs !== undefined) await realDelay(effects.latencyMs);
    if (order !== undefined && effects.afterCommit !== undefined) {
      writeFailure(res, effects.afterCommit, true, deps.dialect);
      return;
    }
    writeOutcome(res, outcome, deps.dialect);
  };
}
