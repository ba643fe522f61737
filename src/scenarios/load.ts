/**
 * Reading scenario files: YAML (or JSON, a subset of YAML) → zod validation →
 * status-table checks. Every problem is reported with the file, the path
 * inside it (`rules[2].effects.httpError.status`) and what is wrong; a set of
 * files is loaded all-or-nothing, so a bad file never leaves a half-applied
 * set behind.
 */
import { readFile } from "node:fs/promises";
import { isMap, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import {
  DEFAULT_STATUS_TABLE,
  isAllowedTransition,
  PENDING_STATUS,
  REVERSED_STATUS,
  type StatusTable,
} from "../contract/status-codes.ts";
import { type ScenarioDefinition, ScenarioFileSchema } from "./schema.ts";

/**
 * Checks a scenario's statuses against the status table in use: a status the
 * table does not define, or a path the lifecycle forbids (a final status
 * never changes, except Success → Reversed), is a load error, not a surprise
 * at run time.
 */

export interface PathedIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

function checkScenarioStatuses(scenario: ScenarioDefinition, table: StatusTable): PathedIssue[] {
  const issues: PathedIssue[] = [];
  scenario.rules.forEach((rule, index) => {
    const at = (...path: (string | number)[]) => ["rules", index, "effects", ...path];
    const { outcome, path, reverseAfter } = rule.effects;
    let last: number | undefined;
    let lastPath: (string | number)[] = [];
    if (outcome !== undefined) {
      last = outcome.status;
      lastPath = at("outcome", "status");
      if (!table.has(outcome.status)) {
        issues.push({ path: lastPath, message: `status ${outcome.status} is not in the status table` });
      } else if (outcome.status === PENDING_STATUS) {
        issues.push({ path: lastPath, message: "0 is where every order starts; use stuckPending: true instead" });
      }
    }
    if (path !== undefined) {
      let previous = PENDING_STATUS;
      path.forEach((step, stepIndex) => {
        const stepPath = at("path", stepIndex, "status");
        if (!table.has(step.status)) {
          issues.push({ path: stepPath, message: `status ${step.status} is not in the status table` });
        } else if (table.has(previous) && !isAllowedTransition(table, previous, step.status)) {
          issues.push({
            path: stepPath,
            message: `${step.status} cannot follow ${previous}: a final status never changes, except Success → Reversed`,
          });
        }
        previous = step.status;
        last = step.status;
        lastPath = stepPath;
      });
    }
    if (reverseAfter !== undefined) {
      if (!table.has(REVERSED_STATUS)) {
        issues.push({ path: at("reverseAfter"), message: `the status table has no Reversed (${REVERSED_STATUS})` });
      } else if (last !== undefined && table.get(last)?.class !== "success") {
        issues.push({
          path: lastPath,
          message: `reverseAfter needs the order to succeed first; status ${last} is not a success`,
        });
      }
    }
  });
  return issues;
}

export interface ScenarioIssue {
  readonly file: string;
  /** Where in the file, e.g. `rules[2].effects.httpError.status`; `(root)` for the whole document. */
  readonly path: string;
  readonly message: string;
  /** 1-based line of the offending node, when known. */
  readonly line?: number;
}

/** A validated scenario and where it came from (a file path, `admin upload`, `built-in`). */
export interface LoadedScenario {
  readonly definition: ScenarioDefinition;
  readonly source: string;
}

export type ScenarioParseResult =
  | { readonly ok: true; readonly scenario: LoadedScenario }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] };

export type ScenarioSetResult =
  | { readonly ok: true; readonly scenarios: readonly LoadedScenario[] }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] };

export interface ParseOptions {
  readonly statusTable?: StatusTable;
}

/** `rules[2].effects.httpError.status` from `["rules", 2, "effects", "httpError", "status"]`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text === "" ? "(root)" : text;
}

/** `file: path: message`, the form the CLI prints and the admin API returns. */
export function formatScenarioIssue(issue: ScenarioIssue): string {
  const line = issue.line === undefined ? "" : ` (line ${issue.line})`;
  return `${issue.file}: ${issue.path}: ${issue.message}${line}`;
}

/**
 * A union's own message is vague ("must be one of …"). When exactly one
 * branch accepted the value's type and shape (no wrong type or unknown key at
 * the union's level), its issues say what is really wrong; otherwise keep
 * the union's message.
 */
function flattenIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): PathedIssue[] {
  const flat: PathedIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path] as (string | number)[];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const closer = issue.errors.filter(
        (branch) =>
          branch.length > 0 &&
          !branch.some(
            (inner) => inner.path.length === 0 && (inner.code === "invalid_type" || inner.code === "unrecognized_keys"),
          ),
      );
      if (closer.length === 1) {
        flat.push(...flattenIssues(closer[0] as z.core.$ZodIssue[], path));
        continue;
      }
    }
    flat.push({ path, message: requiredMessage(issue) ?? issue.message });
  }
  return flat;
}

/** "is required" reads better than zod's "expected string, received undefined". */
function requiredMessage(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_type" || !issue.message.endsWith("received undefined")) return undefined;
  return `is required (${issue.expected})`;
}

/** Validates an already-parsed value (a JSON body, a YAML document). */
export function validateScenario(
  value: unknown,
  file: string,
  { statusTable = DEFAULT_STATUS_TABLE }: ParseOptions = {},
): ScenarioParseResult {
  const parsed = ScenarioFileSchema.safeParse(value);
  const pathed = parsed.success ? checkScenarioStatuses(parsed.data, statusTable) : flattenIssues(parsed.error.issues);
  if (parsed.success && pathed.length === 0) return { ok: true, scenario: { definition: parsed.data, source: file } };
  return {
    ok: false,
    issues: pathed.map((issue) => ({ file, path: formatIssuePath(issue.path), message: issue.message })),
  };
}

/**
 * Parses and validates one scenario file's text (YAML or JSON).
 *
 * @example
 * const result = parseScenarioText(await readFile("scenarios/flaky-gateway.yaml", "utf8"), "flaky-gateway.yaml");
 * if (!result.ok) for (const issue of result.issues) console.error(formatScenarioIssue(issue));
 */
export function parseScenarioText(text: string, file: string, options: ParseOptions = {}): ScenarioParseResult {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      issues: document.errors.map((error) => ({
        file,
        path: "(yaml)",
        message: error.message.split("\n")[0] ?? error.message,
        // Without prettyErrors the parser leaves linePos out: the line comes from the error's offset.
        line: (error.linePos?.[0] ?? lines.linePos(error.pos[0])).line,
      })),
    };
  }
  const result = validateScenario(document.toJS({ maxAliasCount: 100 }), file, options);
  if (result.ok) return result;
  // Point at the line of the deepest node that exists, so an editor can jump there.
  const withLines = result.issues.map((issue) => {
    const line = lineOf(document, issue.path, lines);
    return line === undefined ? issue : { ...issue, line };
  });
  return { ok: false, issues: withLines };
}

function lineOf(document: ReturnType<typeof parseDocument>, path: string, lines: LineCounter): number | undefined {
  if (!isMap(document.contents)) return undefined;
  const keys = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) =>
    match[2] !== undefined ? Number(match[2]) : (match[1] as string),
  );
  for (let depth = keys.length; depth > 0; depth--) {
    const node = document.getIn(keys.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range !== undefined) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

export async function readScenarioFile(file: string, options: ParseOptions = {}): Promise<ScenarioParseResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { ok: false, issues: [{ file, path: "(file)", message: reason }] };
  }
  return parseScenarioText(text, file, options);
}

/**
 * Reads and validates every file; returns all scenarios or every issue of
 * every file (including two files that define the same name).
 */
export async function readScenarioFiles(
  files: readonly string[],
  options: ParseOptions = {},
): Promise<ScenarioSetResult> {
  const results = await Promise.all(files.map((file) => readScenarioFile(file, options)));
  return combineScenarioResults(results);
}

export function combineScenarioResults(results: readonly ScenarioParseResult[]): ScenarioSetResult {
  const issues: ScenarioIssue[] = [];
  const scenarios: LoadedScenario[] = [];
  const byName = new Map<string, string>();
  for (const result of results) {
    if (!result.ok) {
      issues.push(...result.issues);
      continue;
    }
    const { name } = result.scenario.definition;
    const other = byName.get(name);
    if (other !== undefined && other !== result.scenario.source) {
      issues.push({
        file: result.scenario.source,
        path: "name",
        message: `scenario '${name}' is also defined in ${other}`,
      });
      continue;
    }
    if (other === undefined) {
      byName.set(name, result.scenario.source);
      scenarios.push(result.scenario);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, scenarios };
}

/** The issue's place as a JSON Pointer (`#/rules/2/effects`), for problem+json `errors`. */
export function issuePointer(issue: ScenarioIssue): string {
  if (issue.path.startsWith("(")) return "#";
  const keys = [...issue.path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => match[2] ?? (match[1] as string));
  return ["#", ...keys.map((key) => key.replaceAll("~", "~0").replaceAll("/", "~1"))].join("/");
}
