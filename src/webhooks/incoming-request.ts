/**
 * Reading a webhook request on a node:http server: the body as the exact
 * bytes sent (a signature covers bytes, not a re-encoding), bounded in size,
 * and the headers flattened for verification.
 */
import type { IncomingMessage } from "node:http";

export type BodyRead = { readonly kind: "body"; readonly bytes: Buffer } | { readonly kind: "too_large" };

/** Resolves once the request has ended; rejects when the connection fails. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? { kind: "too_large" } : { kind: "body", bytes: Buffer.concat(chunks) }));
    req.on("error", reject);
  });
}

/** Lower-cased names (as node gives them); repeated headers joined with ", ". */
export function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}
