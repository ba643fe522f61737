/**
 * zod validation → `validation_failed` problems with JSON Pointers
 * (`errors: [{pointer: "#/amount", detail}]`).
 */
import type { z } from "zod";
import type { ErrorCode } from "../contract/error-codes.ts";
import { HttpProblem, type ValidationIssue } from "./http-problem.ts";

function toPointer(path: readonly PropertyKey[]): string {
  return ["#", ...path.map((part) => String(part).replaceAll("~", "~0").replaceAll("/", "~1"))].join("/");
}

export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.slice(0, 20).map((issue) => ({ pointer: toPointer(issue.path), detail: issue.message }));
}

/** Parses `value`, or throws a `validation_failed` (or the given code) problem. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  code: ErrorCode = "validation_failed",
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = toValidationIssues(result.error);
  throw new HttpProblem(code, `The ${what} is not valid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join("; ")}`, {
    errors,
  });
}
