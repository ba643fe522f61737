/**
 * How a profile answers each of our errors: its HTTP status, the code it
 * writes and the media type of its error body. The renderer and the
 * dialect's OpenAPI document both read it, so the answers and the document
 * say the same.
 */
import { ERROR_CATALOGUE, type ErrorCode } from "../error-codes.ts";
import type { CompiledProfile } from "./compile.ts";
import type { ProviderProfile } from "./schema.ts";

type ErrorKind = "invalidInput" | "unauthorized" | "notFound" | "wrongMethod";

/** Our codes, by the kind of error the profile names a status and a code for. */
const ERROR_KINDS: Partial<Record<ErrorCode, ErrorKind>> = {
  validation_failed: "invalidInput",
  malformed_json: "invalidInput",
  unsupported_media_type: "invalidInput",
  invalid_idempotency_key: "invalidInput",
  idempotency_key_conflict: "invalidInput",
  service_undetectable: "invalidInput",
  unknown_shortcode: "invalidInput",
  missing_token: "unauthorized",
  invalid_token: "unauthorized",
  not_found: "notFound",
  method_not_allowed: "wrongMethod",
};

export interface ErrorAnswers {
  /** The HTTP status the profile answers our code with; `ours` when it gives none. */
  statusFor(code: string, ours?: number): number;
  /** The code the profile writes for ours. */
  codeFor(code: string): string;
  /** A failed order for want of balance: 402, or the profile's (200 is the order without an id, §7). */
  readonly insufficientStatus: number;
  /** Our spec's RFC 9457 problems, or a provider's own error body as plain JSON. */
  readonly contentType: "application/problem+json" | "application/json";
}

/**
 * @example
 * const answers = compileErrorAnswers(file, compileProfile(file));
 * answers.statusFor("validation_failed"); // 422 for a profile with http.invalidInput: 422
 */
export function compileErrorAnswers(file: ProviderProfile | undefined, profile: CompiledProfile): ErrorAnswers {
  const http = file?.http;
  const codes = profile.resolved.errorCodes;
  const pointers = profile.resolved.bodies.error;
  const problem =
    pointers.code === "/code" && pointers.message === "/detail" && file?.bodies?.error?.extra === undefined;
  const kindOf = (code: string) => ERROR_KINDS[code as ErrorCode];
  return {
    statusFor(code, ours) {
      const kind = kindOf(code);
      const fallback = ours ?? (ERROR_CATALOGUE as Record<string, { status: number } | undefined>)[code]?.status ?? 400;
      return (kind === undefined ? undefined : http?.[kind]) ?? fallback;
    },
    codeFor(code) {
      if (code === "insufficient_balance") return codes.insufficientBalance ?? code;
      const kind = kindOf(code);
      if (kind === undefined) return code;
      if (kind === "wrongMethod") return http?.wrongMethod === 404 ? (codes.notFound ?? code) : code;
      return codes[kind] ?? code;
    },
    insufficientStatus: http?.insufficientBalance ?? 402,
    contentType: problem ? "application/problem+json" : "application/json",
  };
}
