/**
 * The result of a contract run, as data: one verdict per check (passed,
 * failed with a replayable counterexample, or skipped with the reason), what
 * each property did, and harness errors. The console, JUnit and JSON
 * reporters only format it.
 */
import type { CheckName } from "./checks.ts";
import type { Coverage } from "./coverage.ts";
import type { ExchangeRecord, FailureDiff } from "./failure-evidence.ts";
import type { Strictness } from "./strictness.ts";
import type { PropertyName } from "./property.ts";

export interface FailureStep {
  readonly label: string;
  /** One curl command per request the step made (tokens as shell variables). */
  readonly curl: readonly string[];
  /** The same requests with their responses, in the same order as `curl`. */
  readonly exchanges: readonly ExchangeRecord[];
}

export interface CheckFailureReport {
  readonly check: CheckName;
  readonly property: PropertyName;
  readonly message: string;
  readonly seed: number;
  /** `--path` value: fast-check's path, then `@` and the commands' replay path for model runs. */
  readonly path: string;
  /** The shrunk counterexample, step by step. */
  readonly steps: readonly FailureStep[];
  /** The exact command that replays this failure. */
  readonly replay: string;
  /** The harness replayed the counterexample and saw the same check fail again. */
  readonly reproduced: boolean;
  /**
   * The steps are the run as observed, not shrunk: its replay did not fail
   * again (the outcome was random), so shrinking could not have kept it.
   */
  readonly observed: boolean;
  /** Wall time spent shrinking, ms (never more than the shrink cap, plus the run in flight). */
  readonly shrinkMs: number;
  /** Expected against actual, when the check compared two bodies. */
  readonly diff?: FailureDiff;
}

export type CheckVerdict =
  | {
      readonly name: CheckName;
      readonly description: string;
      readonly status: "passed";
      readonly properties: readonly PropertyName[];
      readonly coverage: Coverage;
      /**
       * What it judged cases of but never met: a class of final status, a
       * rule the run could not provoke (with the reason and the way). A
       * failure under --require-coverage.
       */
      readonly notes?: readonly string[];
    }
  | {
      /** It judged nothing: no case of it came up (e.g. no webhook was tied to an order). */
      readonly name: CheckName;
      readonly description: string;
      readonly status: "not_exercised";
      readonly reason: string;
      readonly coverage: Coverage | undefined;
    }
  | {
      readonly name: CheckName;
      readonly description: string;
      readonly status: "failed";
      readonly failure: CheckFailureReport;
    }
  | { readonly name: CheckName; readonly description: string; readonly status: "skipped"; readonly reason: string };

export interface PropertyReport {
  readonly name: PropertyName;
  readonly summary: string;
  /** Runs executed (all iterations, shrinking included). */
  readonly runs: number;
  readonly status: "passed" | "failed" | "skipped" | "error";
  readonly reason?: string;
}

export interface ContractReport {
  readonly ok: boolean;
  readonly seed: number;
  readonly target: string;
  /** Which checks were judged: `strict` (our spec) or `interface` (only what the interface states). */
  readonly profile: Strictness;
  readonly runsPerProperty: number;
  /** Runs of the model property (fewer by default against a real clock: each waits for its orders' finals). */
  readonly modelRuns: number;
  readonly durationMs: number;
  readonly checks: readonly CheckVerdict[];
  readonly properties: readonly PropertyReport[];
  /** Problems of the harness or the connection, not verdicts on the contract. */
  readonly errors: readonly string[];
  /** KES the run reserved for orders (retries included). */
  readonly spent: number;
  readonly budget: number | undefined;
  /** `--require-coverage`: a check that was not exercised, or passed with a note, fails the run. */
  readonly requireCoverage: boolean;
  /** The target is our simulator (in-process, or admin powers answered): hints name its own ways. */
  readonly simulator?: boolean;
  /** Wall time per phase (search, replay, shrink; settling, webhook waits …), ms. */
  readonly timings: Readonly<Record<string, number>>;
}

export function countVerdicts(report: ContractReport): {
  passed: number;
  failed: number;
  skipped: number;
  notExercised: number;
  noted: number;
} {
  const count = (status: CheckVerdict["status"]) => report.checks.filter((c) => c.status === status).length;
  return {
    passed: count("passed"),
    failed: count("failed"),
    skipped: count("skipped"),
    notExercised: count("not_exercised"),
    noted: report.checks.filter(isNoted).length,
  };
}

/** A check that passed with a coverage note: it judged cases, but not every class of them. */
export function isNoted(check: CheckVerdict): boolean {
  return check.status === "passed" && (check.notes?.length ?? 0) > 0;
}

/**
 * Whether the run fails CI: a failed check, a harness error, or (with
 * --require-coverage) a check not exercised or passed with a coverage note.
 */
export function isRunOk(checks: readonly CheckVerdict[], errors: readonly string[], requireCoverage: boolean): boolean {
  return (
    errors.length === 0 &&
    checks.every((c) => c.status !== "failed" && !(requireCoverage && (c.status === "not_exercised" || isNoted(c))))
  );
}
