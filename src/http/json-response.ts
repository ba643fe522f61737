/**
 * A JSON answer written straight to the response: the same status, headers
 * (`Content-Type: application/json; charset=utf-8`, `Content-Length`) and
 * bytes as express' `res.status(n).json(body)` with this app's settings (no
 * ETag, no JSON replacer, spaces or escaping), without its generic send path
 * (content-type parsing, charset rewriting, freshness checks that never
 * apply to a POST). Used by the `POST /v1/airtime` outcomes, the hot path.
 */
import type { Response } from "express";

export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text, "utf8"));
  // A HEAD request gets the headers only, as express does; POST /v1/airtime never sees one.
  if (res.req.method === "HEAD") res.end();
  else res.end(text, "utf8");
}
