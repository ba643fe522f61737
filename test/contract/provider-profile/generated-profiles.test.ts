/**
 * Profiles drawn from the profile schema's dimensions (pointers with index
 * segments, read as lists or as stated objects, word and code statuses, string and number money, kept members,
 * every signing scheme): for each, every answer of a simulator serving it
 * validates (ajv, draft 2020-12) against the document `spec --provider`
 * writes for it, every pointer of the profile resolves in that document (the
 * order's and the error's too), the webhook declares exactly the headers its
 * signing scheme writes, and no answer holds a member the profile does not
 * state.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { expect, test } from "vitest";
import { dialectOpenApiDocument } from "../../../src/contract/openapi/dialect-document.ts";
import { compileRenderer } from "../../../src/contract/provider-profile/render.ts";
import {
  PASSTHROUGH_FIELDS,
  ProviderProfileSchema,
  type ProviderProfile,
} from "../../../src/contract/provider-profile/schema.ts";
import { SUCCESS_WEBHOOK } from "../../../src/contract/routes/public-examples.ts";
import { bearer, DEMO_TOKEN, orderBody, placeOrder, send, startSimulator } from "../../support/http.ts";
import { statedPointers, unstatedMembers } from "../../support/stated-pointers.ts";

type Json = Record<string, unknown>;

/** Where a body keeps its fields: at the top, in an envelope, in the first item of a list, or under a key "0". */
const containerArb = fc.constantFrom("", "/data", "/result/0", "/payload/items/0/detail", "/keyed/0");

/** The kinds a body states: an object keyed by digits is said so (`containers`), as a provider writing one must. */
function containersOf(prefix: string) {
  return prefix.startsWith("/keyed/") ? { containers: { "/keyed": "object" } } : {};
}

const signingArb = fc.constantFrom<NonNullable<ProviderProfile["webhooks"]>["signing"]>(
  { scheme: "standard-webhooks" },
  { scheme: "none" },
  { scheme: "hmac", header: "X-Signature" },
  {
    scheme: "hmac",
    header: "X-Sig",
    hash: "sha512",
    encoding: "base64",
    prefix: "v1=",
    signed: "timestamp.body",
    timestampHeader: "X-Time",
  },
);

function kept<K extends keyof typeof PASSTHROUGH_FIELDS>(kind: K, prefix: string) {
  return fc
    .subarray([...PASSTHROUGH_FIELDS[kind]])
    .map((names) => Object.fromEntries(names.map((name) => [name, `${prefix}/kept_${name}`])));
}

const profileArb = fc
  .record({
    order: containerArb,
    lookup: containerArb,
    webhook: containerArb,
    balance: containerArb,
    error: containerArb,
    words: fc.boolean(),
    money: fc.constantFrom("number" as const, "string" as const),
    signing: signingArb,
  })
  .chain((drawn) =>
    fc.record({
      drawn: fc.constant(drawn),
      lookupKept: kept("lookup", drawn.lookup),
      webhookKept: kept("webhook", drawn.webhook),
      balanceKept: kept("balance", drawn.balance),
      errorKept: kept("error", drawn.error),
    }),
  )
  .map(({ drawn, lookupKept, webhookKept, balanceKept, errorKept }): ProviderProfile => {
    const record = (prefix: string) => ({
      ...containersOf(prefix),
      id: `${prefix}/txId`,
      reference: `${prefix}/ref`,
      status: `${prefix}/state`,
      amount: `${prefix}/value`,
    });
    return ProviderProfileSchema.parse({
      profile: 1,
      name: "generated",
      bodies: {
        order: {
          ...containersOf(drawn.order),
          id: `${drawn.order}/txId`,
          reference: `${drawn.order}/ref`,
          status: `${drawn.order}/code`,
          message: `${drawn.order}/text`,
        },
        lookup: { ...record(drawn.lookup), passthrough: lookupKept },
        webhook: { ...record(drawn.webhook), passthrough: webhookKept },
        balance: {
          ...containersOf(drawn.balance),
          amount: `${drawn.balance}/available`,
          passthrough: balanceKept,
          extra: { "/ok": { constant: true } },
        },
        error: {
          ...containersOf(drawn.error),
          code: `${drawn.error}/errorCode`,
          message: `${drawn.error}/errorText`,
          passthrough: errorKept,
        },
      },
      money: drawn.money,
      statuses: {
        values: drawn.words ? "word" : "code",
        table: [
          { code: 0, word: "PENDING", class: "pending" },
          { code: 1, word: "DONE", class: "success" },
          { code: 2, word: "FAILED", class: "failed" },
          { code: 3, word: "TIMEOUT", class: "failed", message: "Timeout" },
          { code: 4, word: "REVERSED", class: "reversed" },
        ],
      },
      http: { invalidInput: 422, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
      errorCodes: { invalidInput: "BAD_INPUT", unauthorized: "NO_AUTH", notFound: "MISSING" },
      webhooks: {
        event: { pointer: "/event", values: ["order.done", "order.failed"] },
        deliveryId: { header: "X-Delivery" },
        signing: drawn.signing,
      },
    });
  });

/** The schema of one answer in the document. */
function responseSchema(document: Json, path: string, method: string, status: number): Json {
  const operation = (document.paths as Record<string, Record<string, Json>>)[path]?.[method];
  const response = (operation?.responses as Record<string, Json> | undefined)?.[String(status)];
  const content = Object.values((response?.content ?? {}) as Record<string, { schema: Json }>)[0];
  if (content === undefined) throw new Error(`the document has no ${status} for ${method} ${path}`);
  return content.schema;
}

/** Whether a pointer leads to a declared member of the schema (through objects, lists and alternatives). */
function resolves(schema: Json | undefined, keys: readonly string[]): boolean {
  if (schema === undefined) return false;
  if (keys.length === 0) return true;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives !== undefined) return alternatives.some((alternative) => resolves(alternative, keys));
  const [key, ...rest] = keys as [string, ...string[]];
  if (schema.type === "array") {
    const prefix = schema.prefixItems as Json[] | undefined;
    return resolves(prefix === undefined ? (schema.items as Json) : prefix[Number(key)], rest);
  }
  return resolves((schema.properties as Record<string, Json> | undefined)?.[key], rest);
}

/** A Standard Webhooks key, which the HMAC schemes take as text. */
const SECRET = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;

interface WebhookOperation {
  readonly requestBody: { readonly content: Record<string, { schema: Json }> };
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required: boolean }>;
}

function webhookOperation(document: Json): WebhookOperation {
  return ((document.webhooks as Json).airtimeStatus as { post: WebhookOperation }).post;
}

async function answersOf(profile: ProviderProfile) {
  const sim = await startSimulator({ provider: profile, timing: "1000ms", seed: 7 });
  await sim.customers.createCustomer({ id: "poor", token: "poor-token-000001", balance: 10 });
  try {
    const auth = bearer(DEMO_TOKEN);
    const body = orderBody({ reference: "GEN-1", amount: 100 });
    const placed = await placeOrder(sim, body, { "idempotency-key": "gen-key-1" });
    const replayed = await placeOrder(sim, body, { "idempotency-key": "gen-key-1" });
    await sim.clock.advance(60_000);
    return [
      ["post", "/v1/airtime", placed],
      ["post", "/v1/airtime", replayed],
      ["get", "/v1/airtime/{reference}", await send(sim, "/v1/airtime/GEN-1", { headers: auth })],
      ["get", "/v1/balance", await send(sim, "/v1/balance", { headers: auth })],
      ["post", "/v1/airtime", await placeOrder(sim, orderBody({ amount: 500 }), {}, "poor-token-000001")],
      ["post", "/v1/airtime", await placeOrder(sim, orderBody({ amount: -1 }))],
      ["get", "/v1/airtime/{reference}", await send(sim, "/v1/airtime/NONE", { headers: auth })],
      ["get", "/v1/balance", await send(sim, "/v1/balance")],
    ] as const;
  } finally {
    await sim.close();
  }
}

test("every answer of a generated dialect validates against its document and states nothing more", async () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  await fc.assert(
    fc.asyncProperty(profileArb, async (profile) => {
      const document = dialectOpenApiDocument(profile) as Json;
      const stated = statedPointers(profile);
      for (const [method, path, reply] of await answersOf(profile)) {
        const validate = ajv.compile(responseSchema(document, path, method, reply.status));
        expect({ path, status: reply.status, errors: validate(reply.body) ? null : validate.errors }).toEqual({
          path,
          status: reply.status,
          errors: null,
        });
        const kind =
          reply.status === 402
            ? undefined
            : path === "/v1/balance" && reply.status === 200
              ? "balance"
              : path.includes("{reference}") && reply.status === 200
                ? "lookup"
                : reply.status === 200
                  ? "order"
                  : "error";
        const pointers = kind === undefined ? [...(stated.order ?? []), ...(stated.error ?? [])] : stated[kind];
        expect(unstatedMembers(reply.body, pointers)).toEqual([]);
      }
      const webhookSchema = webhookOperation(document).requestBody.content["application/json"]?.schema;
      const renderer = compileRenderer(profile, { newUuid: () => "00000000-0000-4000-8000-000000000000" });
      const webhook = renderer.webhook(SUCCESS_WEBHOOK);
      expect(ajv.validate(webhookSchema as Json, webhook) ? null : ajv.errors).toBeNull();
      expect(unstatedMembers(webhook, stated.webhook)).toEqual([]);
      const answerSchemas = {
        order: responseSchema(document, "/v1/airtime", "post", 200),
        lookup: responseSchema(document, "/v1/airtime/{reference}", "get", 200),
        balance: responseSchema(document, "/v1/balance", "get", 200),
        error: responseSchema(document, "/v1/airtime/{reference}", "get", 404),
      };
      for (const [kind, schema] of Object.entries(answerSchemas) as [keyof typeof answerSchemas, Json][]) {
        for (const pointer of stated[kind] ?? []) {
          const keys = pointer.slice(1).split("/");
          expect({ kind, pointer, resolves: resolves(schema, keys) }).toEqual({ kind, pointer, resolves: true });
        }
      }
      // The headers the profile's scheme signs an attempt with are the ones the webhook declares, all required.
      const signed = renderer.signWebhook({
        id: "msg_1",
        timestampSeconds: 1_700_000_000,
        body: "{}",
        secrets: [SECRET],
      });
      const declared = webhookOperation(document).parameters.map((parameter) => parameter.name.toLowerCase());
      expect(
        Object.keys(signed)
          .map((name) => name.toLowerCase())
          .sort(),
      ).toEqual([...declared].sort());
      for (const pointer of stated.webhook ?? []) {
        expect({ pointer, resolves: resolves(webhookSchema, pointer.slice(1).split("/")) }).toEqual({
          pointer,
          resolves: true,
        });
      }
    }),
    { numRuns: 10, seed: 42 },
  );
});
