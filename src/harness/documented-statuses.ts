/**
 * The HTTP statuses our spec documents per operation, read from the route
 * declarations that generate `spec/openapi.yaml` — one source, so what
 * `strict` judges is exactly what the document lists. 5xx are left out:
 * they are never_server_error's to judge.
 */
import { DEFAULT_ORDER_LIMITS } from "../contract/public-schemas.ts";
import { publicRoutes } from "../contract/routes/public-routes.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { Endpoint } from "./target-spec.ts";

/** Where each judged endpoint is declared. */
const OPERATIONS: Readonly<Record<Exclude<Endpoint, "other">, { method: string; path: string }>> = {
  send_airtime: { method: "post", path: "/v1/airtime" },
  lookup: { method: "get", path: "/v1/airtime/{reference}" },
  balance: { method: "get", path: "/v1/balance" },
};

/**
 * A request no route takes (a wrong method, an unknown path) or one refused
 * before any route runs: the application's own answers, which no operation
 * of the document declares.
 */
const UNROUTED_STATUSES: readonly number[] = [400, 401, 404, 405, 413, 415];

function declaredStatuses(routes: readonly RouteDeclaration[], method: string, path: string): number[] {
  const route = routes.find((r) => r.method === method && r.path === path);
  if (route === undefined) throw new Error(`no route declares ${method.toUpperCase()} ${path}`);
  return Object.keys(route.operation.responses)
    .map(Number)
    .filter((status) => Number.isInteger(status) && status < 500)
    .sort((a, b) => a - b);
}

function documentedStatuses(): Readonly<Record<Endpoint, readonly number[]>> {
  const routes = publicRoutes(DEFAULT_ORDER_LIMITS);
  return {
    send_airtime: declaredStatuses(routes, OPERATIONS.send_airtime.method, OPERATIONS.send_airtime.path),
    lookup: declaredStatuses(routes, OPERATIONS.lookup.method, OPERATIONS.lookup.path),
    balance: declaredStatuses(routes, OPERATIONS.balance.method, OPERATIONS.balance.path),
    other: UNROUTED_STATUSES,
  };
}

/** The statuses per endpoint that `strict` accepts (5xx never: see never_server_error). */
export const DOCUMENTED_STATUSES = documentedStatuses();
