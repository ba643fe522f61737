/**
 * Validation of a send-airtime body against its route's declared schema, with the
 * two refinements a schema cannot express well: `network` as an alias of
 * `service`, and a clear answer to the common mistake of sending the
 * recipient in `phone`.
 */
import type { z } from "zod";
import { toCents } from "../contract/money.ts";
import type { OrderLimits } from "../contract/public-schemas.ts";
import { sendAirtimeRoute } from "../contract/routes/public-routes.ts";
import { jsonBodySchema } from "../contract/routes/route.ts";
import type { PlaceOrderCommand } from "../domain/service-types.ts";
import { HttpProblem } from "./http-problem.ts";
import { toValidationIssues } from "./validation.ts";

/** The domain's order request, with the body's own idempotency key kept apart (the header may carry another). */
export type SendAirtimeInput = Omit<PlaceOrderCommand["request"], "idempotencyKey"> & {
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
export function createSendAirtimeParser(limits: OrderLimits): (body: unknown) => SendAirtimeInput {
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
