import { createConfig, lintFromString } from "@redocly/openapi-core";
import { expect, test } from "vitest";
import { z } from "zod";
import {
  ADMIN_SPEC_FILE,
  createAdminOpenApiDocument,
  renderAdminOpenApiYaml,
} from "../../src/contract/openapi/admin-document.ts";
import { DEFAULT_ADMIN_SPECS } from "../../src/simulator/default-plugins.ts";

async function lint(source: string) {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source, absoluteRef: ADMIN_SPEC_FILE, config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

test("the admin document has no error under Redocly's recommended rules, and the core paths not even a warning", async () => {
  expect(await lint(renderAdminOpenApiYaml())).toEqual([]);
  const withPlugins = await lint(renderAdminOpenApiYaml(DEFAULT_ADMIN_SPECS));
  expect(withPlugins.filter((p) => p.startsWith("error"))).toEqual([]);
});

test("every admin route is described, with its methods", () => {
  const paths = createAdminOpenApiDocument().paths ?? {};
  const described = Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => ["get", "post", "patch"].includes(k))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
  expect(described.sort()).toEqual(
    [
      "POST /_sim/reset",
      "GET /_sim/customers",
      "POST /_sim/customers",
      "GET /_sim/customers/{id}",
      "PATCH /_sim/customers/{id}",
      "GET /_sim/orders",
      "GET /_sim/orders/{id}",
      "POST /_sim/orders/{id}/transition",
      "GET /_sim/stats",
      "GET /_sim/clock",
      "POST /_sim/clock/advance",
      "GET /_sim/journal",
    ].sort(),
  );
});

test("a plugin's adminSpec adds its paths and schemas", async () => {
  const Delivery = z.object({ id: z.string(), status: z.number() }).meta({ id: "TestDelivery" });
  const document = createAdminOpenApiDocument([
    [
      {
        method: "get",
        path: "/_sim/test-deliveries",
        operation: {
          operationId: "listTestDeliveries",
          summary: "List test deliveries",
          responses: {
            "200": { description: "The deliveries.", content: { "application/json": { schema: Delivery } } },
          },
        },
      },
    ],
  ]);
  expect(document.paths?.["/_sim/test-deliveries"]?.get?.operationId).toBe("listTestDeliveries");
  expect(document.components?.schemas?.TestDelivery).toMatchObject({ type: "object" });
});

test("the lint does catch a broken admin document", async () => {
  const broken = renderAdminOpenApiYaml().replace(
    '$ref: "#/components/schemas/AdminClock"',
    '$ref: "#/components/schemas/Nowhere"',
  );
  expect((await lint(broken)).some((p) => p.includes("no-unresolved-refs"))).toBe(true);
});
