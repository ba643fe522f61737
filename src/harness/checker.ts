/**
 * Every assertion the harness makes names its check. A failed assertion
 * throws a CheckFailure carrying that name, so a counterexample always says
 * which promise of the contract was broken. Disabled checks are not asserted
 * at all, which is how `--checks`/`--exclude-checks` work and how the runner
 * looks for further failures after finding one.
 */
import type { CheckName } from "./checks.ts";

export class CheckFailure extends Error {
  override readonly name = "CheckFailure";

  constructor(
    readonly check: CheckName,
    message: string,
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

export interface Checker {
  isEnabled(check: CheckName): boolean;
  /** Asserts `condition` for `check`; throws a CheckFailure when it is false and the check is enabled. */
  that(check: CheckName, condition: boolean, message: string | (() => string)): void;
  /** Records that `check` was exercised without asserting (e.g. a webhook wait that succeeded). */
  touch(check: CheckName): void;
  /** Checks asserted at least once so far. */
  exercised(): ReadonlySet<CheckName>;
}

export function createChecker(enabled: ReadonlySet<CheckName>): Checker {
  const seen = new Set<CheckName>();
  return {
    isEnabled: (check) => enabled.has(check),
    that(check, condition, message) {
      if (!enabled.has(check)) return;
      seen.add(check);
      if (!condition) throw new CheckFailure(check, typeof message === "string" ? message : message());
    },
    touch(check) {
      if (enabled.has(check)) seen.add(check);
    },
    exercised: () => seen,
  };
}
