/**
 * The real side of a model-based run: the API as the harness calls it, the
 * checker, this run's customer and the powers the target grants.
 */
import type { PublicApi } from "./api.ts";
import type { HarnessContext } from "./harness-context.ts";
import type { LedgerEntry } from "./audit/ledger.ts";
import type { Checker } from "./checker.ts";
import type { Transcript } from "./transcript.ts";

export interface TargetClock {
  readonly mode: "virtual" | "real";
  /** Virtual: advances the target's clock. Real: waits (capped). Resolves to the ms that passed. */
  advance(ms: number): Promise<number>;
}

/** One model run: what every property shares, plus this run's API, checker, customer and clock. */
export interface RunContext extends HarnessContext {
  readonly api: PublicApi;
  readonly checker: Checker;
  /** This run's customer token. */
  readonly token: string;
  /** This run's customer id, when the harness created it (admin powers). */
  readonly customerId: string | undefined;
  /** Unique per run: references and keys start with it. */
  readonly prefix: string;
  readonly transcript: Transcript;
  readonly clock: TargetClock;
  /** Earlier runs' orders on this account that were kept (not refunded) when this run read its starting balance. */
  readonly earlierKept: readonly LedgerEntry[];
  /**
   * Runs side by side move this account's balance too: a balance read in the
   * middle of a run tells nothing about this run alone (its wave's end judges it).
   */
  readonly accountMovedMidRun: boolean;
}
