/**
 * 405 for a known path asked with another method, with `Allow`: GET routes
 * also answer HEAD, so a GET path allows both. The public pipeline raises
 * the problem itself; admin routes mount the express handler.
 */
import type { RequestHandler } from "express";
import { HttpProblem } from "./http-problem.ts";

/** The methods a path allows, as `Allow` lists them. */
export function allowedMethods(allowed: readonly string[]): readonly string[] {
  return allowed.includes("GET") ? [...allowed, "HEAD"] : [...allowed];
}

export function methodNotAllowedProblem(method: string | undefined, allow: readonly string[]): HttpProblem {
  return new HttpProblem("method_not_allowed", `${method ?? "GET"} is not allowed here; use ${allow.join(" or ")}.`, {
    headers: { Allow: allow.join(", ") },
  });
}

export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowedMethods(allowed);
  return (req) => {
    throw methodNotAllowedProblem(req.method, allow);
  };
}
