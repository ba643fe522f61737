/**
 * JSON answers written straight to the node:http response: the same status,
 * headers (`Content-Type: …; charset=utf-8`, `Content-Length`) and bytes as
 * express' `res.json(body)` / `res.type(t).send(text)` with this app's
 * settings (no ETag, no JSON replacer, spaces or escaping), without express'
 * generic send path. The body is serialised once, here.
 */
import type { ServerResponse } from "node:http";
import { takePendingRequestId } from "./request-context.ts";

const JSON_TYPE = "application/json; charset=utf-8";

export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  const length = Buffer.byteLength(text, "utf8");
  const requestId = takePendingRequestId(res);
  if (requestId === undefined) {
    res.statusCode = status;
    res.setHeader("Content-Type", contentType);
    res.setHeader("Content-Length", length);
  } else {
    // Status and headers in one step, as a flat list (headers set before, if any, are kept).
    res.writeHead(status, ["X-Request-Id", requestId, "Content-Type", contentType, "Content-Length", String(length)]);
  }
  // A HEAD request gets the headers only, as express does.
  if (res.req.method === "HEAD") res.end();
  else res.end(text, "utf8");
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON_TYPE, JSON.stringify(body));
}
