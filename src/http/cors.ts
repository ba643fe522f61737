/**
 * CORS for a browser app in development, off unless origins are given: a
 * preflight from a listed origin is answered 204 with the methods and
 * headers the API takes (`Authorization`, `Idempotency-Key`…), and every
 * answer to it exposes `Idempotent-Replayed`. Any other origin gets no CORS
 * header at all, and its `OPTIONS` goes on to the routers (405), as it
 * does with CORS off.
 */
import cors from "cors";
import type { RequestHandler } from "express";

/** `*` or an origin as a browser sends it: scheme, host and an optional port, no path. */
export const CORS_ORIGIN_PATTERN = /^(\*|https?:\/\/[^/\s?#]+)$/;

const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "X-Sim-Scenario"] as const;
const CORS_EXPOSED_HEADERS = ["Idempotent-Replayed", "Retry-After", "X-Request-Id"] as const;

export function createCors(origins: readonly string[]): RequestHandler {
  const any = origins.includes("*");
  const listed = new Set(origins);
  return cors({
    // `false` makes the middleware step aside without touching the response.
    origin: (origin, callback) => callback(null, any ? "*" : origin !== undefined && listed.has(origin) && origin),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
}
