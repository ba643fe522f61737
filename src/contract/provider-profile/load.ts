/**
 * Reading a provider profile file: JSON or YAML (JSON is parsed as the YAML
 * subset it is, so both report line and column), validated by the zod
 * schema. Every problem names the field (`statuses.table[2].class`) and,
 * where the file has it, its line:col.
 */
import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { issuePath, readableIssue } from "../readable-issues.ts";
import { type ProviderProfile, ProviderProfileSchema } from "./schema.ts";

export interface ProfileIssue {
  /** e.g. `statuses.table[2].class`; `(top level)` for the file itself. */
  readonly path: string;
  readonly message: string;
  /** 1-based, where the file has the offending node (or its nearest parent). */
  readonly line?: number;
  readonly column?: number;
}

export type ProfileLoadResult =
  | { readonly ok: true; readonly profile: ProviderProfile }
  | { readonly ok: false; readonly issues: readonly ProfileIssue[] };

/**
 * @example
 * const result = parseProviderProfile(text);
 * if (!result.ok) console.error(formatProfileIssues("acme.yaml", result.issues));
 */
export function parseProviderProfile(text: string): ProfileLoadResult {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      issues: document.errors.map((error) => {
        const position = lines.linePos(error.pos[0]);
        return {
          path: "(syntax)",
          message: error.message.split("\n")[0] ?? error.message,
          line: position.line,
          column: position.col,
        };
      }),
    };
  }
  const parsed = ProviderProfileSchema.safeParse(document.toJS({ maxAliasCount: 100 }));
  if (parsed.success) return { ok: true, profile: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((zodIssue) => {
      const issue = readableIssue(zodIssue);
      const at = positionOf(document, issue.path, lines);
      return { path: issuePath(issue.path), message: plainMessage(zodIssue, issue.message), ...at };
    }),
  };
}

/** Reads and parses a profile file; an unreadable file is an issue like any other. */
export async function loadProviderProfile(file: string): Promise<ProfileLoadResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { ok: false, issues: [{ path: "(file)", message: reason }] };
  }
  return parseProviderProfile(text);
}

/** `acme.yaml:12:9: statuses.table[2].class: expected one of …`, one line per issue. */
export function formatProfileIssues(file: string, issues: readonly ProfileIssue[]): string {
  return issues
    .map((issue) => {
      const where =
        issue.line === undefined
          ? file
          : `${file}:${issue.line}${issue.column === undefined ? "" : `:${issue.column}`}`;
      return `${where}: ${issue.path}: ${issue.message}`;
    })
    .join("\n");
}

/** zod's wording, made plain: enumerations list their values as `a|b|c`. */
function plainMessage(issue: z.core.$ZodIssue, fallback: string): string {
  if (issue.code === "invalid_value") return `expected one of ${issue.values.map(String).join("|")}`;
  if (issue.code === "unrecognized_keys")
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
  return fallback;
}

/** The line:col of the deepest node on the path that the file has. */
function positionOf(
  document: ReturnType<typeof parseDocument>,
  path: readonly PropertyKey[],
  lines: LineCounter,
): { line?: number; column?: number } {
  const keys = path.filter((key): key is string | number => typeof key !== "symbol");
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = (depth === 0 ? document.contents : document.getIn(keys.slice(0, depth), true)) as
      { range?: [number, number, number] } | null | undefined;
    if (node?.range !== undefined) {
      const position = lines.linePos(node.range[0]);
      return { line: position.line, column: position.col };
    }
  }
  return {};
}
