/**
 * The `route` label of the request metrics: the declared route a path
 * matched (`/v1/airtime/{reference}`), never the path itself, so a label's
 * values stay few however many references and ids pass through.
 */
import type { RouteDeclaration } from "../contract/routes/route.ts";

const escape = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Paths no declaration names are counted as this route. */
const OTHER_ROUTE = "other";

/**
 * @example
 * const label = routeLabeller([{ method: "get", path: "/v1/airtime/{reference}", operation }]);
 * label("/v1/airtime/order-1?x=1"); // "/v1/airtime/{reference}"
 */
export function routeLabeller(
  routes: readonly RouteDeclaration[],
  prefixes: readonly string[] = [],
): (path: string) => string {
  const templates = [...new Set(routes.map((r) => r.path))];
  const patterns = templates.map((template) => ({
    template,
    regex: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map(escape)
        .join("[^/]+")}$`,
    ),
  }));
  // Every request is labelled: a path with no parameter is found in one lookup, unless a template
  // listed before its own also matches it (the first match wins, as in the scan below).
  const literals = new Map<string, string>();
  patterns.forEach(({ template }, index) => {
    const shadowed = patterns.slice(0, index).some((earlier) => earlier.regex.test(template));
    if (!template.includes("{") && !shadowed) literals.set(template, template);
  });
  return (path) => {
    const query = path.indexOf("?");
    const bare = query < 0 ? path : path.slice(0, query);
    const literal = literals.get(bare);
    if (literal !== undefined) return literal;
    const match = patterns.find((p) => p.regex.test(bare));
    if (match !== undefined) return match.template;
    return prefixes.find((prefix) => bare === prefix || bare.startsWith(`${prefix}/`)) ?? OTHER_ROUTE;
  };
}
