import { OpenApiBuilder } from "openapi3-ts/oas31";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { jsonBody, jsonResponse, parameter } from "../../src/contract/openapi/content.ts";
import { PROBLEM_MEDIA_TYPE, problemResponses } from "../../src/contract/openapi/problems.ts";
import { renderOpenApiYaml } from "../../src/contract/openapi/render-yaml.ts";
import { createSchemaRegistry } from "../../src/contract/openapi/schema-registry.ts";
import { SendAirtimeRequestSchema } from "../../src/contract/public-schemas.ts";

describe("createSchemaRegistry", () => {
  test("a schema with an id becomes a component used by $ref, and so do the schemas it uses", () => {
    const registry = createSchemaRegistry();
    expect(registry.use(SendAirtimeRequestSchema, "input")).toEqual({
      $ref: "#/components/schemas/SendAirtimeRequest",
    });
    const components = registry.components();
    expect(Object.keys(components)).toEqual([
      "Account",
      "IdempotencyKey",
      "Reference",
      "SendAirtimeRequest",
      "Service",
      "Shortcode",
    ]);
    const properties = components.SendAirtimeRequest?.properties as Record<string, { $ref?: string }>;
    expect(properties.account).toEqual({ $ref: "#/components/schemas/Account" });
    expect(JSON.stringify(components)).not.toMatch(/\$defs|\$schema|"\$id"/);
    expect(registry.zodSchemaOf("SendAirtimeRequest")).toBe(SendAirtimeRequestSchema);
  });

  test("a schema without an id is inlined, with $refs to the named schemas inside it", () => {
    const registry = createSchemaRegistry();
    const Named = z.string().meta({ id: "Named" });
    expect(registry.use(z.object({ a: Named, b: z.number() }), "output")).toEqual({
      type: "object",
      properties: { a: { $ref: "#/components/schemas/Named" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    expect(Object.keys(registry.components())).toEqual(["Named"]);
  });

  test("input and output that differ get two components, and so does everything using them", () => {
    const registry = createSchemaRegistry();
    const Inner = z.object({ page: z.number().default(1) }).meta({ id: "Inner" });
    const Outer = z.object({ inner: Inner, name: z.string() }).meta({ id: "Outer" });
    const Plain = z.string().meta({ id: "Plain" });
    const Holder = z.object({ outer: Outer, plain: Plain }).meta({ id: "Holder" });
    registry.use(Holder, "input");
    expect(registry.use(Holder, "output")).toEqual({ $ref: "#/components/schemas/HolderOutput" });
    const components = registry.components();
    expect(Object.keys(components)).toEqual([
      "Holder",
      "HolderOutput",
      "Inner",
      "InnerOutput",
      "Outer",
      "OuterOutput",
      "Plain",
    ]);
    expect(components.Inner?.required).toBeUndefined();
    expect(components.InnerOutput?.required).toEqual(["page"]);
    expect(components.OuterOutput?.properties?.inner).toEqual({ $ref: "#/components/schemas/InnerOutput" });
    expect(components.HolderOutput?.properties?.plain).toEqual({ $ref: "#/components/schemas/Plain" });
  });

  test("two different schemas with one id are refused", () => {
    const registry = createSchemaRegistry();
    registry.use(z.string().meta({ id: "Twice" }), "input");
    expect(() => registry.use(z.number().meta({ id: "Twice" }), "input")).toThrow(/Twice/);
  });

  test("`example` becomes JSON Schema's `examples`, even next to a property called example", () => {
    const registry = createSchemaRegistry();
    const schema = z.object({ example: z.string().meta({ example: "x" }) }).meta({ id: "WithExample" });
    registry.use(schema, "input");
    expect(registry.components().WithExample?.properties).toEqual({ example: { type: "string", examples: ["x"] } });
  });

  test("types JSON Schema cannot describe fail the build instead of becoming {}", () => {
    const registry = createSchemaRegistry();
    expect(() => registry.use(z.object({ at: z.date() }), "output")).toThrow();
  });
});

describe("content helpers", () => {
  test("an example that does not match its schema fails the build, naming it", () => {
    const registry = createSchemaRegistry();
    const schema = z.object({ amount: z.number().min(10) });
    expect(() => jsonBody(registry, schema, { tooSmall: { summary: "", value: { amount: 1 } } })).toThrow(
      /example "tooSmall".*amount/,
    );
    expect(() =>
      jsonResponse(registry, schema, { ok: { summary: "", value: { amount: 10 } } }, { description: "" }),
    ).not.toThrow();
    expect(() => parameter(registry, z.string().max(3), { name: "q", in: "query", example: "four" })).toThrow();
  });

  test("problemResponses groups codes by HTTP status with one example per code from the catalogue", () => {
    const registry = createSchemaRegistry();
    const responses = problemResponses(
      registry,
      [
        { code: "not_found", when: "No such order.", detail: "No order." },
        { code: "missing_token", when: "No token.", detail: "Send a token." },
        { code: "invalid_token", when: "Bad token.", detail: "Bad token." },
      ],
      { instance: "/v1/x", notes: { 404: "A note." } },
    );
    expect(Object.keys(responses)).toEqual(["401", "404"]);
    const examples = responses["401"]?.content?.[PROBLEM_MEDIA_TYPE]?.examples ?? {};
    expect(Object.keys(examples)).toEqual(["missing_token", "invalid_token"]);
    expect((examples.missing_token as { value: unknown }).value).toEqual({
      type: "about:blank",
      title: "Missing bearer token",
      status: 401,
      detail: "Send a token.",
      instance: "/v1/x",
      code: "missing_token",
    });
    expect(responses["404"]?.description).toBe("A note.\n\n- `not_found`: No such order.");
  });
});

describe("renderOpenApiYaml", () => {
  test("renders the same text every time, without YAML anchors for shared objects", () => {
    const shared = { description: "Same object twice." };
    const build = () =>
      OpenApiBuilder.create()
        .addTitle("t")
        .addVersion("1")
        .addPath("/a", { get: { responses: { "200": shared } } })
        .addPath("/b", { get: { responses: { "200": shared } } })
        .getSpec();
    const text = renderOpenApiYaml(build(), "header line");
    expect(renderOpenApiYaml(build(), "header line")).toBe(text);
    expect(text.startsWith("# header line\nopenapi: 3.1.0\ninfo:")).toBe(true);
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text).not.toContain("components");
  });
});
