/**
 * The JSON structure of an answer, without its values: each path with the
 * kind of what it holds (object, array, string, number, boolean, null),
 * an array's items under `[]`. Two answers with different ids, times or
 * request ids have the same shape; an array where the other side writes an
 * object, or a field only one side writes, does not. The shape rule
 * compares these per answer kind, which reading through a profile's
 * pointers cannot: a pointer finds `balances[0]` in an array and in an
 * object keyed "0" alike.
 */
import { type AnswerEvidence, exactVerdict, type Operation, type RuleResult } from "./rules.ts";

/** `/balances: array`, `/balances/[]/available: number`, … one line per path, sorted. */
export type AnswerShape = readonly string[];

function kindOf(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function walk(value: unknown, path: string, into: Set<string>): void {
  into.add(`${path === "" ? "/" : path}: ${kindOf(value)}`);
  if (Array.isArray(value)) {
    for (const item of value) walk(item, `${path}/[]`, into);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, member] of Object.entries(value)) walk(member, `${path}/${key}`, into);
  }
}

/**
 * @example
 * shapeOf({ balances: [{ available: 10 }] }); // ["/: object", "/balances: array", "/balances/[]: object", "/balances/[]/available: number"]
 */
export function shapeOf(body: unknown): AnswerShape {
  if (body === undefined) return [];
  const lines = new Set<string>();
  walk(body, "", lines);
  return [...lines].sort();
}

/** One side's answers of one kind: how many showed each path line, and a request that drew one. */
export interface ShapeSample {
  readonly lines: Readonly<Record<string, number>>;
  readonly answers: number;
  readonly example?: string | undefined;
}

/**
 * Compares the structure of one kind of answer on both sides: a path line
 * seen on one side and never on the other is a missing or an extra field
 * (or a container of another kind). The evidence lists only those lines, so
 * the report names what differs. A different shape breaks a client as
 * surely as a different status, hence high severity.
 */
export function compareShapes(
  rule: string,
  operation: Operation,
  simulator: ShapeSample,
  target: ShapeSample,
): RuleResult {
  const onlyIn = (one: ShapeSample, other: ShapeSample): AnswerEvidence => ({
    answers: Object.fromEntries(Object.entries(one.lines).filter(([line]) => other.lines[line] === undefined)),
    example: one.example,
  });
  const extra = onlyIn(simulator, target);
  const missing = onlyIn(target, simulator);
  const observed = Math.min(simulator.answers, target.answers);
  const agrees =
    observed === 0 || (Object.keys(extra.answers).length === 0 && Object.keys(missing.answers).length === 0);
  return exactVerdict({
    rule,
    operation,
    agrees,
    severity: "high",
    observations: observed,
    test: "the same paths with the same container and value types (values ignored); lines seen on one side only",
    simulator: extra,
    target: missing,
  });
}
