/**
 * Body limits and parsing: 415 for a body that is not JSON, 413 above
 * 64 KiB, 400 for malformed JSON, and a structural check of the parsed value.
 *
 * express 5's json parser (body-parser 2) runs in strict mode by default
 * (only objects and arrays at the top level) and uses plain `JSON.parse`,
 * which turns a `"__proto__"` key into an own property rather than polluting
 * a prototype — but such keys still reach any code that copies the object, so
 * they are refused here, as is nesting no airtime body ever needs.
 */
import express, { type Request, type RequestHandler } from "express";
import { HttpProblem } from "./http-problem.ts";

const BODY_LIMIT_BYTES = 64 * 1024;
const MAX_BODY_DEPTH = 16;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function hasBody(req: Request): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

function isJsonContentType(req: Request): boolean {
  return req.is(["application/json", "application/*+json"]) !== false;
}

/** A scenario file uploaded as YAML to the admin API; the scenarios route parses it. */
function isYamlScenarioUpload(req: Request): boolean {
  const yaml = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];
  return req.method === "POST" && req.path === "/_sim/scenarios" && req.is(yaml) !== false;
}

export const parseJsonBody: RequestHandler = express.json({
  limit: BODY_LIMIT_BYTES,
  strict: true,
  type: ["application/json", "application/*+json"],
});

function escapePointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Whether `findStructuralIssue` would find anything, without building a
 * pointer per key: every body takes this walk, only a refused one the
 * detailed one. Recursion stops at `MAX_BODY_DEPTH`, so the stack stays
 * shallow whatever the body.
 */
function hasStructuralIssue(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth >= MAX_BODY_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (hasStructuralIssue(value[index], depth + 1)) return true;
    }
    return false;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key) || hasStructuralIssue((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Iterative, so a pathological body cannot overflow the stack. */
function findStructuralIssue(body: unknown): { pointer: string; detail: string } | undefined {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: body, pointer: "#", depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, pointer, depth } = item;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_BODY_DEPTH) {
      return { pointer, detail: `nesting deeper than ${MAX_BODY_DEPTH} levels is not accepted` };
    }
    if (Array.isArray(value)) {
      value.forEach((element, index) => {
        stack.push({ value: element, pointer: `${pointer}/${index}`, depth: depth + 1 });
      });
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = `${pointer}/${escapePointerToken(key)}`;
      if (FORBIDDEN_KEYS.has(key)) return { pointer: child, detail: `the key ${JSON.stringify(key)} is not accepted` };
      stack.push({ value: (value as Record<string, unknown>)[key], pointer: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** The problem with a parsed body's structure, if any. */
export function structureProblem(body: unknown): HttpProblem | undefined {
  const issue = hasStructuralIssue(body, 0) ? findStructuralIssue(body) : undefined;
  return issue === undefined
    ? undefined
    : new HttpProblem("validation_failed", "The request body has an unsafe structure.", { errors: [issue] });
}

/** The 415 problem for a request whose body is not JSON; undefined when it may pass. */
export function contentTypeProblem(req: Request): HttpProblem | undefined {
  const type = req.headers["content-type"];
  // The form nearly every client sends, known to be JSON without parsing it.
  if (type === "application/json") return undefined;
  if (!hasBody(req) || isJsonContentType(req) || isYamlScenarioUpload(req)) return undefined;
  return new HttpProblem(
    "unsupported_media_type",
    type === undefined
      ? "A request body needs Content-Type: application/json."
      : `Content-Type ${JSON.stringify(type.slice(0, 100))} is not accepted; send application/json.`,
  );
}
