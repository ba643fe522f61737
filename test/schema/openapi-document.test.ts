import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createConfig, lintFromString, type NormalizedProblem } from "@redocly/openapi-core";
import { Webhook } from "standardwebhooks";
import { describe, expect, test, vi } from "vitest";
import { parse, stringify } from "yaml";
import type { z } from "zod";
import { ERROR_CATALOGUE, isErrorCode } from "../../src/contract/error-codes.ts";
import {
  DEFAULT_ORDER_LIMITS,
  IdempotencyKeySchema,
  type ProblemSchema,
  ReferenceSchema,
  ShortcodeSchema,
} from "../../src/contract/public-schemas.ts";
import { PUBLIC_ERROR_CODES } from "../../src/contract/routes/public-descriptions.ts";
import { EXAMPLE_WEBHOOK_SECRET } from "../../src/contract/routes/public-examples.ts";
import { AIRTIME_STATUS_WEBHOOK, publicRoutes } from "../../src/contract/routes/public-routes.ts";
import { WebhookHeadersSchema } from "../../src/contract/webhook-schemas.ts";

const SPEC_PATH = fileURLToPath(new URL("../../spec/openapi.yaml", import.meta.url));
const committed = readFileSync(SPEC_PATH, "utf8");
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, walked generically.
type Loose = any;
const doc: Loose = parse(committed);

/** The zod schema behind each component, from the route declarations the document is generated from. */
const zodById = new Map<string, z.ZodType>();
for (const { operation } of [...publicRoutes(DEFAULT_ORDER_LIMITS), AIRTIME_STATUS_WEBHOOK]) {
  const responses = Object.values<Loose>(operation.responses);
  for (const content of [operation.requestBody?.content, ...responses.map((response) => response.content)]) {
    for (const media of Object.values<Loose>(content ?? {})) {
      const id = (media.schema as z.ZodType).meta()?.id;
      if (id !== undefined) zodById.set(id, media.schema);
    }
  }
}
for (const schema of [IdempotencyKeySchema, ReferenceSchema, ShortcodeSchema]) zodById.set(schema.meta()!.id!, schema);

async function lint(source: string): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ["recommended"] });
  return lintFromString({ source, absoluteRef: SPEC_PATH, config });
}

/** Every media type with examples in paths and webhooks, with where it is. */
function mediaTypes(): { where: string; status?: string; mediaType: string; content: Record<string, unknown> }[] {
  const found: { where: string; status?: string; mediaType: string; content: Record<string, unknown> }[] = [];
  for (const [section, items] of [
    ["paths", doc.paths],
    ["webhooks", doc.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries<Record<string, Loose>>(items)) {
      for (const [method, operation] of Object.entries<Loose>(item)) {
        const where = `${section} ${method.toUpperCase()} ${path}`;
        for (const [mediaType, content] of Object.entries<Loose>(operation.requestBody?.content ?? {})) {
          found.push({ where: `${where} request`, mediaType, content });
        }
        for (const [status, response] of Object.entries<Loose>(operation.responses ?? {})) {
          for (const [mediaType, content] of Object.entries<Loose>(response.content ?? {})) {
            found.push({ where: `${where} ${status}`, status, mediaType, content });
          }
        }
      }
    }
  }
  return found;
}

function zodSchemaFor(schema: { $ref?: string }): z.ZodType {
  const name = schema.$ref?.replace("#/components/schemas/", "");
  const zodSchema = name === undefined ? undefined : zodById.get(name);
  if (zodSchema === undefined) throw new Error(`no zod schema behind ${JSON.stringify(schema)}`);
  return zodSchema;
}

describe("the committed spec/openapi.yaml", () => {
  test("is OpenAPI 3.1 without a single problem under Redocly's recommended rules", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const problems = await lint(committed);
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  test("the validator does catch a broken document", async () => {
    const broken = structuredClone(doc);
    delete broken.info.title;
    broken.paths["/v1/balance"].get.responses["200"].content["application/json"].schema = {
      $ref: "#/components/schemas/Nowhere",
    };
    broken.paths["/v1/airtime"].post.responses["200"].content["application/json"].examples.pending.value.status = "0";
    const problems = (await lint(stringify(broken))).filter((p) => p.severity === "error");
    const rules = problems.map((p) => p.ruleId);
    expect(rules).toEqual(expect.arrayContaining(["struct", "no-unresolved-refs"]));
  });

  test("every example validates against its own zod schema", () => {
    let checked = 0;
    for (const { where, mediaType, content } of mediaTypes()) {
      const schema = zodSchemaFor(content.schema as { $ref?: string });
      const examples = Object.entries<{ value: unknown }>(
        (content.examples ?? {}) as Record<string, { value: unknown }>,
      );
      expect(examples.length, `${where} ${mediaType} has no example`).toBeGreaterThan(0);
      for (const [name, example] of examples) {
        const result = schema.safeParse(example.value);
        expect(result.success, `${where} example ${name}: ${result.error?.message}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(35);
  });

  test("problem examples carry their response's status and the catalogue's title", () => {
    for (const { where, status, mediaType, content } of mediaTypes()) {
      if (mediaType !== "application/problem+json") continue;
      for (const example of Object.values<{ value: z.infer<typeof ProblemSchema> }>(content.examples as never)) {
        const { code, title, status: bodyStatus } = example.value;
        expect(isErrorCode(code), where).toBe(true);
        expect(String(bodyStatus), where).toBe(status);
        expect(title, where).toBe(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].title);
      }
    }
  });

  test("parameter, header and webhook-header examples match their schemas", () => {
    for (const [name, param] of Object.entries<Loose>(doc.components.parameters)) {
      expect(zodSchemaFor(param.schema).safeParse(param.example).success, name).toBe(true);
    }
    for (const param of doc.webhooks.airtimeStatus.post.parameters) {
      const shape = WebhookHeadersSchema.shape as Record<string, z.ZodType>;
      expect(shape[param.name]?.safeParse(param.example).success, param.name).toBe(true);
    }
  });

  test("the webhook header examples are a real signature of the success example", () => {
    const webhook = doc.webhooks.airtimeStatus.post;
    const headers = Object.fromEntries(
      webhook.parameters.map((p: { name: string; example: string }) => [p.name, p.example]),
    );
    const body = JSON.stringify(webhook.requestBody.content["application/json"].examples.success.value);
    vi.useFakeTimers({ now: Number(headers["webhook-timestamp"]) * 1000 });
    try {
      expect(new Webhook(EXAMPLE_WEBHOOK_SECRET).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(EXAMPLE_WEBHOOK_SECRET).verify(body.replace("100", "1000"), headers)).toThrow();
    } finally {
      vi.useRealTimers();
    }
  });

  test("every $ref points at something that exists and no zod $defs leak through", () => {
    const refs = [...committed.matchAll(/\$ref: "([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(30);
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((node, key) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
    expect(committed).not.toContain("$defs");
    expect(committed).not.toMatch(/^\s*\$schema:/m);
  });
});

describe("what the document says", () => {
  const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);

  test("each operation lists every response it can give", () => {
    expect(statuses("/v1/airtime", "post")).toEqual([
      "200",
      "400",
      "401",
      "402",
      "409",
      "413",
      "415",
      "429",
      "500",
      "502",
      "503",
    ]);
    expect(statuses("/v1/airtime/{reference}", "get")).toEqual(["200", "400", "401", "404", "410"]);
    expect(statuses("/v1/balance", "get")).toEqual(["200", "400", "401"]);
    expect(statuses("/v1/auth/token", "post")).toEqual(["200", "401"]);
  });

  test("scenario-only statuses say so, and 429/503 carry Retry-After", () => {
    const responses = doc.paths["/v1/airtime"].post.responses;
    for (const status of ["429", "500", "502", "503"]) {
      expect(responses[status].description).toMatch(/^Scenario-injected/);
    }
    expect(responses["429"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
    expect(responses["503"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
    for (const status of ["200", "400", "401", "402", "409"]) {
      expect(responses[status].description).not.toMatch(/Scenario-injected/);
    }
  });

  test("every public error code except 405 has an example somewhere", () => {
    const shown = new Set(
      mediaTypes()
        .filter((m) => m.mediaType === "application/problem+json")
        .flatMap((m) =>
          Object.values<{ value: { code: string } }>(m.content.examples as never).map((e) => e.value.code),
        ),
    );
    // 405 answers a method on no operation, so no operation can list it; the description covers it.
    expect([...PUBLIC_ERROR_CODES].filter((code) => !shown.has(code))).toEqual(["method_not_allowed"]);
    expect(doc.info.description).toContain("`method_not_allowed` (405, with `Allow`)");
  });

  test("bearer security applies to everything but the token operation, which takes Basic", () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/v1/auth/token"].post.security).toEqual([{ basicAuth: [] }]);
    expect(doc.paths["/v1/airtime"].post.responses["401"].headers["WWW-Authenticate"]).toBeDefined();
  });

  test("Idempotency-Key is a header of 1–255 visible ASCII characters; replays carry Idempotent-Replayed", () => {
    const param = doc.components.parameters.IdempotencyKey;
    expect(param).toMatchObject({ name: "Idempotency-Key", in: "header", required: false });
    expect(doc.components.schemas.IdempotencyKey).toMatchObject({ minLength: 1, maxLength: 255 });
    const pattern = new RegExp(doc.components.schemas.IdempotencyKey.pattern);
    expect(pattern.test("a".repeat(255))).toBe(true);
    expect(pattern.test("a".repeat(256))).toBe(false);
    expect(pattern.test("a b")).toBe(false);
    expect(doc.paths["/v1/airtime"].post.parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
    expect(doc.paths["/v1/airtime"].post.responses["200"].headers["Idempotent-Replayed"]).toBeDefined();
  });

  test("requests are open objects, responses closed ones", () => {
    expect(doc.components.schemas.SendAirtimeRequest.additionalProperties).toBeUndefined();
    for (const name of [
      "SendAirtimeResponse",
      "TransactionStatusResponse",
      "BalanceResponse",
      "Problem",
      "WebhookPayload",
    ]) {
      expect(doc.components.schemas[name].additionalProperties, name).toBe(false);
    }
  });

  test("the webhook has the payload body and the three Standard Webhooks headers", () => {
    const webhook = doc.webhooks.airtimeStatus.post;
    expect(webhook.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/WebhookPayload",
    });
    expect(
      webhook.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    ).toEqual([
      ["webhook-id", "header", true],
      ["webhook-timestamp", "header", true],
      ["webhook-signature", "header", true],
    ]);
    expect(webhook.description).toContain("HMAC-SHA256");
  });

  test("where the interface says 'not shown', the document decides", () => {
    const text = doc.info.description as string;
    for (const decision of [
      "application/problem+json",
      "402",
      "24 hours",
      "normalisation",
      "alias of `service`",
      "from 10 to 10000",
      "none of the five: 0121, 0130, 0744, 0760, 0767",
    ]) {
      expect(text).toContain(decision);
    }
    expect(doc.components.schemas.StatusCode.description).toContain("- `7` Insufficient balance (failed)");
    expect(doc.paths["/v1/balance"].get.description).toContain("status: 20");
    expect(doc.paths["/v1/airtime/{reference}"].get.description).toContain("history");
    expect(doc.servers).toEqual([{ url: "http://127.0.0.1:4010", description: expect.any(String) }]);
  });
});
