/**
 * `POST /v1/airtime` after authentication, top to bottom: validate the body
 * against its route's schema → resolve the idempotency key → scenario
 * effects → domain → response. Injected failures happen either before
 * anything is committed or after the order exists, which is exactly the case
 * idempotency keys exist for.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { ErrorCode } from "../contract/error-codes.ts";
import { toCents } from "../contract/money.ts";
import { detectService, parseKenyanMobile } from "../contract/operators.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import { IDEMPOTENCY_KEY_PATTERN, type OrderLimits } from "../contract/public-schemas.ts";
import { sendAirtimeRoute } from "../contract/routes/public-routes.ts";
import { jsonBodySchema } from "../contract/routes/route.ts";
import type { Customer, Order } from "../domain/model.ts";
import type { AirtimeService, PlaceOrderCommand, PlaceOrderOutcome } from "../domain/service-types.ts";
import {
  type HttpFailure,
  NO_EFFECTS,
  type RequestFacts,
  type ResolvedEffects,
  type ScenarioEngine,
} from "../domain/scenario-engine.ts";
import { sendProblem } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import type { IdempotencyOutcome } from "./journal.ts";
import { presentInsufficient, presentOrder } from "./presenters.ts";
import { type RequestState, sendJson } from "./request-context.ts";
import { toValidationIssues } from "./validation.ts";

export interface PlaceOrderDeps {
  readonly service: AirtimeService;
  readonly limits: OrderLimits;
  readonly scenarioEngines: readonly ScenarioEngine[];
  /** Every plugin's `beforeResponse`, awaited when the order asks for its webhook first. */
  readonly beforeResponse: (order: Order) => Promise<void>;
  /** Writes every public answer in the provider's dialect (our spec's by default). */
  readonly dialect: DialectRenderer;
}

/*
 * The body: validation against its route's declared schema, with the two
 * refinements a schema cannot express well: `network` as an alias of
 * `service`, and a clear answer to the common mistake of sending the
 * recipient in `phone`.
 */

/** The domain's order request, with the body's own idempotency key kept apart (the header may carry another). */
type SendAirtimeInput = Omit<PlaceOrderCommand["request"], "idempotencyKey"> & {
  readonly bodyKey?: string;
};

const PHONE_IS_NOT_RECIPIENT =
  "missing: `phone` is the customer's own phone number; put the recipient's number in `account`";

function summarise(errors: readonly { pointer: string; detail: string }[]): string {
  const shown = errors.slice(0, 3).map((e) => `${e.pointer}: ${e.detail}`);
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : "";
  return `The request body failed validation — ${shown.join("; ")}${more}.`;
}

/**
 * zod's `safeParse`, not a compiled validator. Measured (`bench/validation.ts`):
 * ajv compiled from this schema's JSON Schema checks a valid body about 10×
 * faster than zod, but zod was 2.3 % of the server's CPU samples under load
 * (`node --cpu-prof`, `POST /v1/airtime`), and ajv alone cannot carry the
 * refinements (two decimals, well-formed Unicode) nor the messages clients
 * see: it would be a second validator to keep equal to the first, for at most
 * that 2 %. The schema is built once per simulator, so each request pays only
 * the parse.
 */
function createSendAirtimeParser(limits: OrderLimits): (body: unknown) => SendAirtimeInput {
  const schema = jsonBodySchema(sendAirtimeRoute(limits));
  return (body) => {
    const result = schema.safeParse(body);
    if (!result.success) throw toProblem(result.error, body);
    const data = result.data;
    if (data.service !== undefined && data.network !== undefined && data.service !== data.network) {
      const errors = [
        { pointer: "#/network", detail: "is an alias of `service` and must equal it when both are sent" },
      ];
      throw new HttpProblem("validation_failed", summarise(errors), { errors });
    }
    const service = data.service ?? data.network;
    // Built field by field: conditional spreads in a literal take V8's slow cloning path, on every order.
    const input: { -readonly [K in keyof SendAirtimeInput]: SendAirtimeInput[K] } = {
      account: data.account,
      amountCents: toCents(data.amount),
      currency: data.currency,
      reference: data.reference,
    };
    if (service !== undefined) input.service = service;
    if (data.shortcode !== undefined) input.shortcode = data.shortcode;
    if (data.idempotencyKey !== undefined) input.bodyKey = data.idempotencyKey;
    return input;
  };
}

function toProblem(error: z.ZodError, body: unknown): HttpProblem {
  const hasPhoneOnly =
    typeof body === "object" && body !== null && "phone" in body && !("account" in body) && !Array.isArray(body);
  const errors = toValidationIssues(error).map((issue) =>
    hasPhoneOnly && issue.pointer === "#/account" ? { ...issue, detail: PHONE_IS_NOT_RECIPIENT } : issue,
  );
  // A bad body key is the only problem: say so with the idempotency code.
  const code = errors.every((e) => e.pointer === "#/idempotencyKey") ? "invalid_idempotency_key" : "validation_failed";
  return new HttpProblem(code, summarise(errors), { errors });
}

/*
 * The idempotency key: from the `Idempotency-Key` header (a bare token, or an
 * RFC 8941 sf-string such as `"abc"`) or from the body's `idempotencyKey`.
 * Both may be sent only when they are equal.
 */

const KEY_RULE = "An idempotency key is 1–255 visible ASCII characters (a UUID v4 is recommended).";

/** RFC 8941 §3.3.3: `"` *( unescaped / `\"` / `\\` ) `"`, printable ASCII only. */
function parseSfString(value: string): string | undefined {
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < value.length - 1; i++) {
    const char = value[i] as string;
    const code = char.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return undefined;
    if (char === "\\") {
      const next = value[i + 1];
      if (next !== '"' && next !== "\\") return undefined;
      if (i + 1 === value.length - 1) return undefined;
      out += next;
      i++;
    } else if (char === '"') {
      return undefined;
    } else {
      out += char;
    }
  }
  return out;
}

/** The key carried by the header, or undefined when the header is absent. */
function parseIdempotencyKeyHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  const key = trimmed.startsWith('"') ? parseSfString(trimmed) : trimmed;
  if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new HttpProblem("invalid_idempotency_key", `The Idempotency-Key header is not valid. ${KEY_RULE}`);
  }
  return key;
}

/** Combines the header key and an already-validated body key. */
function resolveIdempotencyKey(header: string | undefined, bodyKey: string | undefined): string | undefined {
  const headerKey = parseIdempotencyKeyHeader(header);
  if (headerKey !== undefined && bodyKey !== undefined && headerKey !== bodyKey) {
    throw new HttpProblem(
      "idempotency_key_conflict",
      "The Idempotency-Key header and the body's idempotencyKey differ; send one, or the same value in both.",
    );
  }
  return headerKey ?? bodyKey;
}

/*
 * Scenario effects: combine every engine's answer, and turn an `HttpFailure`
 * into what the client sees (a problem with its status, or a dropped
 * connection).
 */

/** Later engines' fields override earlier ones; `fired` is concatenated. */
function mergeEffects(list: readonly ResolvedEffects[]): ResolvedEffects {
  let merged: ResolvedEffects = NO_EFFECTS;
  for (const effects of list) {
    merged = { ...merged, ...stripUndefined(effects), fired: [...merged.fired, ...effects.fired] };
  }
  return merged;
}

function stripUndefined(effects: ResolvedEffects): Partial<ResolvedEffects> {
  return Object.fromEntries(Object.entries(effects).filter(([, value]) => value !== undefined));
}

async function evaluateAll(engines: readonly ScenarioEngine[], facts: RequestFacts): Promise<ResolvedEffects> {
  if (engines.length === 0) return NO_EFFECTS;
  // One engine (the usual case) needs no merge: its answer is the merged answer, read field by field.
  if (engines.length === 1) return (engines[0] as ScenarioEngine).evaluate(facts);
  const results: ResolvedEffects[] = [];
  for (const engine of engines) results.push(await engine.evaluate(facts));
  return mergeEffects(results);
}

const FAILURE_CODES: Record<429 | 500 | 502 | 503, ErrorCode> = {
  429: "rate_limited",
  500: "internal_error",
  502: "upstream_error",
  503: "service_unavailable",
};

/** Answers with an injected failure. `committed` says whether the order exists regardless. */
function writeFailure(res: ServerResponse, failure: HttpFailure, committed: boolean, dialect: DialectRenderer): void {
  switch (failure.kind) {
    case "drop":
      res.socket?.destroy();
      res.destroy();
      return;
    case "error": {
      const detail = committed
        ? "Injected failure after the order was committed; retry with the same idempotency key."
        : "Injected failure; nothing was committed.";
      const headers: Record<string, string> =
        failure.retryAfterSeconds === undefined ? {} : { "Retry-After": String(failure.retryAfterSeconds) };
      sendProblem(res, new HttpProblem(FAILURE_CODES[failure.status], detail, { headers }), dialect);
      return;
    }
    default: {
      const unreachable: never = failure;
      throw new Error(`unknown failure ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Waits on real timers: latency is what the client experiences, whatever the simulator clock does. */
function realDelay(ms: number | undefined): Promise<void> {
  if (ms === undefined || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/* The order: the facts scenarios match on, the domain command, and the answer. */

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
  order: SendAirtimeInput,
  key: string | undefined,
): RequestFacts {
  const parsed = parseKenyanMobile(order.account);
  // The operator the order names, else the one its account's prefix belongs to.
  const service = order.service ?? (parsed === undefined ? undefined : detectService(parsed.nsn));
  const scenario = req.headers["x-sim-scenario"];
  const facts: Mutable<RequestFacts> = {
    customerId,
    account: parsed?.e164 ?? order.account,
    amountCents: order.amountCents,
    reference: order.reference,
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
