/**
 * The OpenAPI document of a provider's dialect (`spec --provider FILE`,
 * and `/openapi.json` of a simulator serving it): our spec's document with
 * every public body replaced by the dialect's schema, every error response
 * moved to the dialect's HTTP status and body, and the webhook's body and
 * headers as the profile writes and signs them. The examples are our
 * spec's, so they are left out. Without a profile it is our spec's document.
 */
import { dialectSchemas, type JsonSchema } from "../provider-profile/dialect-schemas.ts";
import { compileProfile } from "../provider-profile/compile.ts";
import type { ProviderProfile } from "../provider-profile/schema.ts";
import { publicOpenApiDocument } from "./public-document.ts";

type Json = Record<string, unknown>;
type ErrorKind = "invalidInput" | "unauthorized" | "notFound" | "wrongMethod";

/** Our error statuses, by the kind of error a profile gives a status for. */
const KIND_OF_STATUS: Readonly<Record<string, ErrorKind>> = {
  "400": "invalidInput",
  "401": "unauthorized",
  "404": "notFound",
  "405": "wrongMethod",
};

function header(name: string, description: string): Json {
  return { in: "header", name, required: true, description, schema: { type: "string" } };
}

/** The webhook's request headers under the profile's delivery id and signing scheme. */
function webhookHeaders(file: ProviderProfile): Json[] | undefined {
  const { signing, deliveryId } = compileProfile(file).resolved;
  if (signing.scheme === "standard-webhooks" && "header" in deliveryId && deliveryId.header === "webhook-id") {
    return undefined;
  }
  const headers: Json[] = [];
  if ("header" in deliveryId) headers.push(header(deliveryId.header, "The same on every retry of a delivery."));
  if (signing.scheme === "hmac") {
    const over = signing.signed === "timestamp.body" ? `"<${signing.timestampHeader}>.<body>"` : "the body";
    const hash = signing.hash ?? "sha256";
    const encoding = signing.encoding ?? "hex";
    headers.push(header(signing.header, `${signing.prefix ?? ""}HMAC-${hash} (${encoding}) of ${over}.`));
    if (signing.timestampHeader !== undefined && signing.signed === "timestamp.body") {
      headers.push(header(signing.timestampHeader, "Unix seconds of the attempt."));
    }
  }
  return headers;
}

/**
 * @example
 * const document = dialectOpenApiDocument(loadedProfile);
 * writeFileSync("acme.openapi.json", JSON.stringify(document));
 */
export function dialectOpenApiDocument(file: ProviderProfile | undefined): Json {
  const document = structuredClone(publicOpenApiDocument()) as unknown as Json;
  if (file === undefined) return document;
  const schemas = dialectSchemas(file);
  const profile = compileProfile(file);
  const errorType = profile.resolved.bodies.error.code === "/code" ? "application/problem+json" : "application/json";
  const okSchemas: Readonly<Record<string, JsonSchema>> = {
    sendAirtime: schemas.order,
    getTransactionStatus: schemas.lookup,
    getBalance: schemas.balance,
  };
  const http = file.http ?? {};
  const json = (schema: JsonSchema, type = "application/json") => ({ [type]: { schema } });

  for (const item of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const responses: Record<string, Json> = {};
      const operationId = operation.operationId as string;
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const description = String(response.description ?? "");
        if (status === "200") {
          const schema = okSchemas[operationId];
          responses[status] = schema === undefined ? response : { ...response, content: json(schema) };
          continue;
        }
        if (status === "402" && operationId === "sendAirtime") {
          const moved = String(http.insufficientBalance ?? 402);
          const earlier = responses[moved]?.content as Record<string, { schema: JsonSchema }> | undefined;
          const schema =
            earlier === undefined
              ? schemas.insufficient
              : { oneOf: [earlier["application/json"]?.schema, schemas.insufficient] };
          responses[moved] = {
            description: `${String(responses[moved]?.description ?? "")}\n${description}`.trim(),
            content: json(schema),
          };
          continue;
        }
        const kind = KIND_OF_STATUS[status];
        const moved = String((kind === undefined ? undefined : http[kind]) ?? status);
        const earlier = responses[moved];
        responses[moved] = {
          ...response,
          description: earlier === undefined ? description : `${String(earlier.description)}\n${description}`,
          content: json(schemas.error, errorType),
        };
      }
      operation.responses = responses;
    }
  }
  const webhook = (document.webhooks as Record<string, Record<string, Json>>).airtimeStatus?.post;
  if (webhook !== undefined) {
    webhook.requestBody = { ...(webhook.requestBody as Json), content: json(schemas.webhook) };
    const headers = webhookHeaders(file);
    if (headers !== undefined) webhook.parameters = headers;
  }
  document.info = { ...(document.info as Json), title: `${profile.name} (as airtime-harness serves it)` };
  return document;
}
