/**
 * zod issues as people read them: a dotted path and what is wrong there.
 * Shared by the config file's errors and the commands' flag errors.
 */
import type { z } from "zod";

/** One problem: where (a path inside the parsed value) and what. */
export interface ReadableIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** `customers[0].balance`; `(top level)` for the value itself. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0
    ? "(top level)"
    : path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "");
}

/**
 * zod reports a failed union as "Invalid input"; say instead what the most
 * relevant branch objected to (the one that got past the type check), at
 * its full path.
 */
export function readableIssue(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): ReadableIssue {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors.filter((branch) => branch.length > 0);
    const relevant =
      branches.find((branch) => !branch.every((i) => i.code === "invalid_type" && i.path.length === 0)) ?? branches[0];
    const first = relevant?.[0];
    if (first !== undefined) return readableIssue(first, path);
  }
  return { path, message: issue.message };
}
