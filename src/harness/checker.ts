/**
 * Every assertion the harness makes names its check. A failed assertion
 * throws a CheckFailure carrying that name, so a counterexample always says
 * which promise of the contract was broken. Disabled checks are not asserted
 * at all, which is how `--checks`/`--exclude-checks` work and how the runner
 * looks for further failures after finding one.
 */
import type { CheckName } from "./checks.ts";
import type { FailureDiff } from "./failure-evidence.ts";

export class CheckFailure extends Error {
  override readonly name = "CheckFailure";

  constructor(
    readonly check: CheckName,
    message: string,
    /** The two bodies that disagreed, for reports that show a diff. */
    readonly diff?: FailureDiff,
  ) {
    super(`[${check}] ${message}`);
  }
}

export function isCheckFailure(error: unknown): error is CheckFailure {
  return error instanceof CheckFailure;
}

/** An error inside the harness itself (a bug, or a target it cannot reach), never a contract verdict. */
export class HarnessError extends Error {
  override readonly name = "HarnessError";
}

/** The target could not be reached, or dropped the connection (no HTTP answer at all). */
export class UnreachableError extends HarnessError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface Checker {
  isEnabled(check: CheckName): boolean;
  /**
   * Asserts `condition` for `check`; throws a CheckFailure when it is false and the check is enabled.
   * `diff` names the two bodies compared, when there are two.
   */
  that(check: CheckName, condition: boolean, message: string | (() => string), diff?: () => FailureDiff): void;
  /** Records that `check` was exercised without asserting (e.g. a webhook wait that succeeded). */
  touch(check: CheckName): void;
  /** Counts one relevant case of `check` under `label` (e.g. a webhook judged for a Success), for coverage. */
  tally(check: CheckName, label: string): void;
  /**
   * A rule of `check` the run could not provoke, with the reason and the way
   * to provoke it: the check still passes, with the note (a failure under
   * --require-coverage).
   */
  note(check: CheckName, text: string): void;
  /** Checks asserted at least once so far. */
  exercised(): ReadonlySet<CheckName>;
  /** The notes so far, per check. */
  notes(): ReadonlyMap<CheckName, ReadonlySet<string>>;
  /** The tallies so far, per check and label. */
  tallies(): ReadonlyMap<CheckName, ReadonlyMap<string, number>>;
  /** How many times each check was asserted. */
  assertions(): ReadonlyMap<CheckName, number>;
}

export function createChecker(enabled: ReadonlySet<CheckName>): Checker {
  const seen = new Set<CheckName>();
  const counts = new Map<CheckName, Map<string, number>>();
  const asserted = new Map<CheckName, number>();
  const noted = new Map<CheckName, Set<string>>();
  return {
    isEnabled: (check) => enabled.has(check),
    that(check, condition, message, diff) {
      if (!enabled.has(check)) return;
      seen.add(check);
      asserted.set(check, (asserted.get(check) ?? 0) + 1);
      if (!condition) throw new CheckFailure(check, typeof message === "string" ? message : message(), diff?.());
    },
    touch(check) {
      if (enabled.has(check)) seen.add(check);
    },
    tally(check, label) {
      if (!enabled.has(check)) return;
      seen.add(check);
      const byLabel = counts.get(check) ?? new Map<string, number>();
      byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
      counts.set(check, byLabel);
    },
    note(check, text) {
      if (!enabled.has(check)) return;
      noted.set(check, (noted.get(check) ?? new Set<string>()).add(text));
    },
    exercised: () => seen,
    notes: () => noted,
    tallies: () => counts,
    assertions: () => asserted,
  };
}
