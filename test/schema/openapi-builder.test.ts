import { describe, expect, test } from "vitest";
import { z } from "zod";
import { generateDocument, renderOpenApiYaml } from "../../src/contract/openapi/render-yaml.ts";
import { PROBLEM_MEDIA_TYPE, problemResponses } from "../../src/contract/routes/problems.ts";
import type { RouteDeclaration } from "../../src/contract/routes/route.ts";

const INFO = { title: "t", version: "1" };

function routeAnswering(schema: z.ZodType, value: unknown): RouteDeclaration {
  return {
    method: "get",
    path: "/x",
    operation: {
      responses: {
        "200": { description: "ok", content: { "application/json": { schema, examples: { ok: { value } } } } },
      },
    },
  };
}

describe("generateDocument", () => {
  test("an example that does not match its schema fails the build, naming it", () => {
    const schema = z.object({ amount: z.number().min(10) });
    expect(() => generateDocument({ info: INFO, routes: [routeAnswering(schema, { amount: 1 })] })).toThrow(
      /GET \/x: example "ok".*amount/i,
    );
    expect(() => generateDocument({ info: INFO, routes: [routeAnswering(schema, { amount: 10 })] })).not.toThrow();
  });

  test("types JSON Schema cannot describe fail the build instead of becoming {}", () => {
    const schema = z.object({ seen: z.map(z.string(), z.number()) });
    expect(() => generateDocument({ info: INFO, routes: [routeAnswering(schema, { seen: new Map() })] })).toThrow(
      /cannot be represented/,
    );
  });
});

describe("problemResponses", () => {
  test("groups codes by HTTP status with one example per code from the catalogue", () => {
    const responses = problemResponses(
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
      generateDocument({
        info: INFO,
        routes: [
          { method: "get", path: "/a", operation: { responses: { "200": shared } } },
          { method: "get", path: "/b", operation: { responses: { "200": shared } } },
        ],
      });
    const text = renderOpenApiYaml(build(), "header line");
    expect(renderOpenApiYaml(build(), "header line")).toBe(text);
    expect(text.startsWith("# header line\nopenapi: 3.1.0\ninfo:")).toBe(true);
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text).not.toContain("components");
  });
});
