/**
 * The OpenAPI document of a provider's dialect (`spec --provider FILE`,
 * and `/openapi.json` of a simulator serving it), generated from the same
 * compiled profile as the answers: every public body is the dialect's schema
 * (closed: nothing of ours beyond what the profile keeps), every error
 * answer sits under the dialect's HTTP status with its body and codes, the
 * send-airtime request keeps to the dialect's amounts, services, account
 * forms and references, the
 * webhook carries the dialect's body, delivery id and signature headers, and
 * the prose says the same. Our spec's examples, components and text do not
 * carry over. Without a profile it is our spec's document.
 */
import { ERROR_CATALOGUE, type ErrorCode } from "../error-codes.ts";
import { compileProfile, type CompiledProfile } from "../provider-profile/compile.ts";
import { dialectSchemas, type DialectSchemas, type JsonSchema } from "../provider-profile/dialect-schemas.ts";
import { compileErrorAnswers, type ErrorAnswers } from "../provider-profile/error-answers.ts";
import { ACCOUNT_FORMS } from "../provider-profile/domain-rules.ts";
import type { AccountFormat, ProfileSigning, ProviderProfile } from "../provider-profile/schema.ts";
import { publicOpenApiDocument } from "./public-document.ts";

type Json = Record<string, unknown>;

const OK_BODIES: Readonly<Record<string, keyof DialectSchemas>> = {
  sendAirtime: "order",
  getTransactionStatus: "lookup",
  getBalance: "balance",
};

const OK_TEXT: Readonly<Record<string, string>> = {
  sendAirtime: "The order: new, or replayed for a retry with the same key (same id, latest status).",
  getTransactionStatus: "The order's current status.",
  getBalance: "The selected wallet's available balance.",
};

const OPERATION_TEXT: Readonly<Record<string, string>> = {
  sendAirtime:
    "Places an airtime order. The answer holds the order's id, reference, status (a number) and message where the " +
    "schema says. A retry with the same `Idempotency-Key` and payload answers 200 with the same id, the latest " +
    "status and `Idempotent-Replayed: true`.",
  getTransactionStatus: "The current status of the caller's order with this reference. Percent-encode the reference.",
  getBalance: "The available balance of the caller's default wallet, or of the wallet named by `?shortcode=`.",
};

function header(name: string, description: string): Json {
  return { in: "header", name, required: true, description, schema: { type: "string" } };
}

/** The webhook's request headers: the delivery id and the signature, as the profile's scheme writes them. */
function webhookHeaders(profile: CompiledProfile): Json[] {
  const { signing, deliveryId } = profile.resolved;
  const headers: Json[] = [];
  if ("header" in deliveryId) headers.push(header(deliveryId.header, "The same on every retry of a delivery."));
  if (signing.scheme === "standard-webhooks") {
    if (!("header" in deliveryId && deliveryId.header.toLowerCase() === "webhook-id")) {
      headers.push(header("webhook-id", "The Standard Webhooks message id."));
    }
    headers.push(header("webhook-timestamp", "Unix seconds of the attempt."));
    headers.push(header("webhook-signature", "Space-separated `v1,<base64>` signatures, one per active secret."));
  }
  if (signing.scheme === "hmac") {
    headers.push(header(signing.header, describeSigning(signing)));
    if (signing.timestampHeader !== undefined && signing.signed === "timestamp.body") {
      headers.push(header(signing.timestampHeader, "Unix seconds of the attempt."));
    }
  }
  return headers;
}

/** The list of codes an answer of this status may carry, as the dialect writes them. */
function errorText(answers: ErrorAnswers, ours: readonly ErrorCode[], pointer: string): string {
  const lines = ours.map((code) => `- \`${answers.codeFor(code)}\`: ${ERROR_CATALOGUE[code].title}.`);
  return [`The error body, its code at \`${pointer}\`:`, "", ...[...new Set(lines)]].join("\n");
}

/** Our codes named by a response's description (`- \`validation_failed\`: …`). */
function codesIn(description: string): ErrorCode[] {
  return [...description.matchAll(/^- `([a-z_]+)`/gm)]
    .map((match) => match[1] as string)
    .filter((code): code is ErrorCode => code in ERROR_CATALOGUE);
}

interface Context {
  readonly profile: CompiledProfile;
  readonly schemas: DialectSchemas;
  readonly answers: ErrorAnswers;
  readonly errorType: string;
}

/** One operation's responses, moved to the dialect's statuses with its bodies and text. */
function dialectResponses(operation: Json, context: Context): Record<string, Json> {
  const { profile, schemas, answers, errorType } = context;
  const operationId = operation.operationId as string;
  const responses: Record<string, Json> = {};
  const codesBy = new Map<string, ErrorCode[]>();
  for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
    if (status === "200") {
      const kind = OK_BODIES[operationId];
      responses[status] =
        kind === undefined
          ? response
          : {
              ...response,
              description: OK_TEXT[operationId],
              content: { "application/json": { schema: schemas[kind] } },
            };
      continue;
    }
    if (status === "402" && operationId === "sendAirtime") continue;
    const ours = codesIn(String(response.description ?? ""));
    const moved = String(ours.length === 0 ? status : answers.statusFor(ours[0] as ErrorCode));
    codesBy.set(moved, [...(codesBy.get(moved) ?? []), ...ours]);
    const { headers } = response;
    responses[moved] = {
      description: errorText(answers, codesBy.get(moved) ?? [], profile.pointer("error")),
      ...(headers === undefined ? {} : { headers }),
      content: { [errorType]: { schema: schemas.error } },
    };
  }
  if (operationId === "sendAirtime") addInsufficient(responses, context);
  return responses;
}

/** The failed order for want of balance, under the dialect's status (200: beside the order, §7). */
function addInsufficient(responses: Record<string, Json>, { profile, schemas, answers }: Context): void {
  const status = String(answers.insufficientStatus);
  const text =
    `A failed order for want of balance: the order without an id, its error code ` +
    `\`${answers.codeFor("insufficient_balance")}\` at \`${profile.pointer("error")}\`.`;
  const earlier = responses[status];
  if (earlier === undefined) {
    responses[status] = { description: text, content: { "application/json": { schema: schemas.insufficient } } };
    return;
  }
  const content = earlier.content as Record<string, { schema: JsonSchema }>;
  const first = Object.values(content)[0]?.schema;
  responses[status] = {
    ...earlier,
    description: `${String(earlier.description)}\n\nOr: ${text}`,
    content: { "application/json": { schema: { anyOf: [first, schemas.insufficient] } } },
  };
}

/** The send-airtime request as the dialect accepts it: its amounts and services. */
const ACCOUNT_EXAMPLES: Readonly<Record<AccountFormat, string>> = {
  local: "0712345678",
  international: "254712345678",
  e164: "+254712345678",
  short: "712345678",
};

function narrowRequest(
  components: Record<string, Json>,
  profile: CompiledProfile,
  given: ProviderProfile["domain"],
): void {
  const { minAmount, maxAmount, decimals, services, currency } = profile.domain;
  const request = components.SendAirtimeRequest as { properties: Record<string, Json> } | undefined;
  const amount = request?.properties.amount;
  if (amount !== undefined) {
    const places = decimals === 0 ? "whole shillings" : `at most ${decimals} decimal${decimals === 1 ? "" : "s"}`;
    Object.assign(amount, {
      minimum: minAmount,
      maximum: maxAmount,
      description: `Amount in ${currency}, ${minAmount}–${maxAmount}, ${places}.`,
      examples: [Math.min(Math.max(100, minAmount), maxAmount)],
      ...(decimals === 0 ? { multipleOf: 1 } : {}),
    });
  }
  const service = components.Service;
  if (service !== undefined) service.enum = [...services];
  // The account forms and the reference rule the profile states, as the domain rules check them.
  const account = components.Account;
  if (account !== undefined && given?.accounts !== undefined) {
    account.pattern = `^(?:${profile.domain.accounts.map((form) => ACCOUNT_FORMS[form].source.slice(1, -1)).join("|")})$`;
    account.examples = [ACCOUNT_EXAMPLES[profile.domain.accounts[0] ?? "local"]];
  }
  const reference = components.Reference;
  if (reference !== undefined && given?.reference !== undefined) {
    Object.assign(reference, {
      pattern: profile.domain.referencePattern.source,
      maxLength: profile.domain.referenceMaxLength,
    });
  }
}

/** Drops every component no `$ref` reaches, so the document holds only what it uses. */
function pruneComponents(document: Json): void {
  const components = document.components as Record<string, Record<string, unknown>>;
  for (;;) {
    const { components: _held, ...rest } = document;
    const text = JSON.stringify(rest) + JSON.stringify(components);
    let removed = false;
    for (const [section, entries] of Object.entries(components)) {
      if (section === "securitySchemes") continue;
      for (const name of Object.keys(entries)) {
        if (!text.includes(`"#/components/${section}/${name}"`)) {
          delete entries[name];
          removed = true;
        }
      }
    }
    if (!removed) return;
  }
}

/**
 * @example
 * const document = dialectOpenApiDocument(loadedProfile);
 * writeFileSync("acme.openapi.json", JSON.stringify(document));
 */
export function dialectOpenApiDocument(file: ProviderProfile | undefined): Json {
  const document = structuredClone(publicOpenApiDocument()) as unknown as Json;
  if (file === undefined) return document;
  const profile = compileProfile(file);
  const answers = compileErrorAnswers(file, profile);
  const context: Context = { profile, schemas: dialectSchemas(file), answers, errorType: answers.contentType };
  for (const item of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const text = OPERATION_TEXT[operation.operationId as string];
      if (text !== undefined) operation.description = text;
      // Our request examples keep to our bounds, not necessarily to the dialect's.
      for (const media of Object.values(((operation.requestBody as Json | undefined)?.content ?? {}) as Json)) {
        delete (media as Json).examples;
      }
      operation.responses = dialectResponses(operation, context);
    }
  }
  const webhook = (document.webhooks as Record<string, Record<string, Json>>).airtimeStatus?.post;
  if (webhook !== undefined) {
    webhook.summary = "An order reached a final status (or was reversed)";
    webhook.description = describeSigning(profile.resolved.signing);
    webhook.requestBody = { required: true, content: { "application/json": { schema: context.schemas.webhook } } };
    webhook.parameters = webhookHeaders(profile);
  }
  narrowRequest((document.components as { schemas: Record<string, Json> }).schemas, profile, file.domain);
  document.info = {
    ...(document.info as Json),
    title: `${profile.name} (as airtime-harness serves it)`,
    description: describeDialect(profile, answers),
  };
  pruneComponents(document);
  return document;
}

/**
 * The prose of a dialect's OpenAPI document, written from its compiled
 * profile: where each body keeps its fields, the amounts it accepts, its
 * statuses, its errors and how its webhooks are signed. Nothing here
 * speaks of our spec's bodies, problem+json or signing unless the profile
 * is ours in those respects.
 */

/** How the webhook is signed, in one paragraph. */
function describeSigning(signing: ProfileSigning): string {
  if (signing.scheme === "none") return "Webhooks are not signed.";
  if (signing.scheme === "standard-webhooks") {
    return (
      "Signed the Standard Webhooks way: `webhook-signature` holds `v1,<base64>` HMAC-SHA256 signatures of " +
      "`<webhook-id>.<webhook-timestamp>.<raw body>`, one per active secret."
    );
  }
  const over = signing.signed === "timestamp.body" ? `\`<${signing.timestampHeader}>.<raw body>\`` : "the raw body";
  const digest = `HMAC-${(signing.hash ?? "sha256").toUpperCase()} in ${signing.encoding ?? "hex"}`;
  const prefix = signing.prefix === undefined || signing.prefix === "" ? "" : `, after \`${signing.prefix}\``;
  return `Signed with the endpoint's secret: \`${signing.header}\` holds the ${digest} of ${over}${prefix}.`;
}

function statusLines(profile: CompiledProfile): string[] {
  const words = profile.resolved.statusValues === "word";
  return [...profile.statuses.table.values()].map((definition) => {
    const written = profile.statuses.written(definition.code);
    const word = words && typeof written === "string" ? ` \`${written}\`` : "";
    return `- \`${definition.code}\`${word} ${profile.statuses.nameOf(definition.code)} (${profile.statuses.classOf(definition.code) ?? definition.class})`;
  });
}

/** The document's description: the dialect as the simulator serves it. */
function describeDialect(profile: CompiledProfile, answers: ErrorAnswers): string {
  const { domain, resolved } = profile;
  const money = resolved.money === "string" ? 'decimal strings (`"150.00"`)' : "numbers";
  const places = domain.decimals === 0 ? "whole shillings" : `at most ${domain.decimals} decimals`;
  const written = resolved.statusValues === "word" ? "words" : "numbers";
  const deliveryId =
    "header" in resolved.deliveryId
      ? `the \`${resolved.deliveryId.header}\` header`
      : `\`${resolved.deliveryId.pointer}\``;
  return [
    `The airtime top-up API in the dialect of ${profile.name}: place an order, look it up by reference, read the ` +
      "balance. Each answer holds the members its schema lists and nothing more. Orders complete asynchronously: " +
      "the first answer is usually pending; the final status arrives by webhook and from the lookup.",
    "",
    "## Orders",
    "",
    `Amounts are ${domain.minAmount}–${domain.maxAmount} ${domain.currency}, ${places}; money is written as ${money}. ` +
      "A retry with the same `Idempotency-Key` and payload answers 200 with the same id and the header " +
      "`Idempotent-Replayed: true`; the same key with another payload answers " +
      `${answers.statusFor("idempotency_payload_mismatch")} \`${answers.codeFor("idempotency_payload_mismatch")}\`.`,
    "",
    "## Statuses",
    "",
    `The send-airtime answer writes the status as a number; the lookup and the webhook as ${written}.`,
    "",
    ...statusLines(profile),
    "",
    "## Errors",
    "",
    `Errors are ${answers.contentType} bodies with the code at \`${resolved.bodies.error.code}\` and the message at ` +
      `\`${resolved.bodies.error.message}\`. Every operation needs \`Authorization: Bearer <token>\`.`,
    "",
    "## Webhooks",
    "",
    `Order-status events carry \`${resolved.event.pointer}\` set to one of ${resolved.event.values.map((value) => `\`${value}\``).join(", ")}; ` +
      `the delivery id, the same on every retry, is in ${deliveryId}. ${describeSigning(resolved.signing)}`,
  ].join("\n");
}
