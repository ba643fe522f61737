import { describe, expect, it } from "vitest";
import { DEFAULT_ORDER_LIMITS } from "../../src/contract/public-schemas.ts";
import { publicRoutes } from "../../src/contract/routes/public-routes.ts";
import type { RouteDeclaration } from "../../src/contract/routes/route.ts";
import { createRouteTable, operationFor } from "../../src/http/public-pipeline.ts";

const table = createRouteTable(publicRoutes(DEFAULT_ORDER_LIMITS));

describe("the public route table, derived from the declarations", () => {
  it("matches every declared path, with one optional trailing slash", () => {
    expect(table.match("/v1/airtime")?.template).toBe("/v1/airtime");
    expect(table.match("/v1/airtime/")?.template).toBe("/v1/airtime");
    expect(table.match("/v1/balance/")?.template).toBe("/v1/balance");
    expect(table.match("/v1/auth/token")?.template).toBe("/v1/auth/token");
    expect(table.match("/v1/balance//")).toBeUndefined();
    expect(table.match("/V1/balance")).toBeUndefined();
    expect(table.match("/v1/airtime/a/b")).toBeUndefined();
  });

  it("hands the raw path parameter over, still encoded", () => {
    const matched = table.match("/v1/airtime/ref%2F1/");
    expect(matched?.template).toBe("/v1/airtime/{reference}");
    expect(matched?.params).toEqual({ reference: "ref%2F1" });
  });

  it("lists Allow from the declared methods, GET adding HEAD", () => {
    expect(table.match("/v1/balance")?.allow).toEqual(["GET", "HEAD"]);
    expect(table.match("/v1/airtime")?.allow).toEqual(["POST"]);
    const lookup = table.match("/v1/airtime/x");
    if (lookup === undefined) throw new Error("no match");
    expect(operationFor(lookup, "HEAD")).toBe("getTransactionStatus");
    expect(operationFor(lookup, "POST")).toBeUndefined();
  });

  it("routes a newly declared route with no other change", () => {
    const extra: RouteDeclaration = {
      method: "delete" as RouteDeclaration["method"],
      path: "/v1/airtime/{reference}",
      operation: { operationId: "cancelOrder", responses: {} },
    };
    const grown = createRouteTable([...publicRoutes(DEFAULT_ORDER_LIMITS), extra]);
    const matched = grown.match("/v1/airtime/x");
    if (matched === undefined) throw new Error("no match");
    expect(matched.allow).toEqual(["GET", "DELETE", "HEAD"]);
    expect(operationFor(matched, "DELETE")).toBe("cancelOrder");
    expect(grown.operationIds).toContain("cancelOrder");
  });

  it("finds a path declared after a template that matches it where the template is, as declared", () => {
    const route = (path: string, operationId: string): RouteDeclaration => ({
      method: "get" as RouteDeclaration["method"],
      path,
      operation: { operationId, responses: {} },
    });
    const shadowed = createRouteTable([route("/v1/items/{id}", "getItem"), route("/v1/items/latest", "getLatest")]);
    expect(shadowed.match("/v1/items/latest")?.template).toBe("/v1/items/{id}");
    expect(shadowed.match("/v1/items/latest")?.params).toEqual({ id: "latest" });
    const first = createRouteTable([route("/v1/items/latest", "getLatest"), route("/v1/items/{id}", "getItem")]);
    expect(first.match("/v1/items/latest/")?.template).toBe("/v1/items/latest");
    expect(first.match("/v1/items/latest")?.params).toEqual({});
  });
});
