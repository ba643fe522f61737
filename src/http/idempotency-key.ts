/**
 * The idempotency key of a send-airtime request: from the `Idempotency-Key`
 * header (a bare token, or an RFC 8941 sf-string such as `"abc"`) or from
 * the body's `idempotencyKey`. Both may be sent only when they are equal.
 */
import { IDEMPOTENCY_KEY_PATTERN } from "../contract/public-schemas.ts";
import { HttpProblem } from "./http-problem.ts";

const KEY_RULE = "An idempotency key is 1–255 visible ASCII characters (a UUID v4 is recommended).";

/** RFC 8941 §3.3.3: `"` *( unescaped / `\"` / `\\` ) `"`, printable ASCII only. */
function parseSfString(value: string): string | undefined {
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < value.length - 1; i++) {
    const char = value[i] as string;
    const code = char.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return undefined;
    if (char === "\\") {
      const next = value[i + 1];
      if (next !== '"' && next !== "\\") return undefined;
      if (i + 1 === value.length - 1) return undefined;
      out += next;
      i++;
    } else if (char === '"') {
      return undefined;
    } else {
      out += char;
    }
  }
  return out;
}

/** The key carried by the header, or undefined when the header is absent. */
function parseIdempotencyKeyHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  const key = trimmed.startsWith('"') ? parseSfString(trimmed) : trimmed;
  if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new HttpProblem("invalid_idempotency_key", `The Idempotency-Key header is not valid. ${KEY_RULE}`);
  }
  return key;
}

/** Combines the header key and an already-validated body key. */
export function resolveIdempotencyKey(header: string | undefined, bodyKey: string | undefined): string | undefined {
  const headerKey = parseIdempotencyKeyHeader(header);
  if (headerKey !== undefined && bodyKey !== undefined && headerKey !== bodyKey) {
    throw new HttpProblem(
      "idempotency_key_conflict",
      "The Idempotency-Key header and the body's idempotencyKey differ; send one, or the same value in both.",
    );
  }
  return headerKey ?? bodyKey;
}
