/**
 * The result of a contract run, as data: one verdict per check (passed,
 * failed with a replayable counterexample, or skipped with the reason), what
 * each property did, and harness errors. The console, JUnit and JSON
 * reporters only format it.
 */
import type { CheckName } from "./checks.ts";
import type { PropertyName } from "./property.ts";

export interface FailureStep {
  readonly label: string;
  /** One curl command per request the step made (tokens as shell variables). */
  readonly curl: readonly string[];
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
}

export type CheckVerdict =
  | {
      readonly name: CheckName;
      readonly description: string;
      readonly status: "passed";
      readonly properties: readonly PropertyName[];
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
  readonly runsPerProperty: number;
  readonly durationMs: number;
  readonly checks: readonly CheckVerdict[];
  readonly properties: readonly PropertyReport[];
  /** Problems of the harness or the connection, not verdicts on the contract. */
  readonly errors: readonly string[];
  /** KES the run reserved for orders (retries included). */
  readonly spent: number;
  readonly budget: number | undefined;
}

export function countVerdicts(report: ContractReport): { passed: number; failed: number; skipped: number } {
  const count = (status: CheckVerdict["status"]) => report.checks.filter((c) => c.status === status).length;
  return { passed: count("passed"), failed: count("failed"), skipped: count("skipped") };
}
