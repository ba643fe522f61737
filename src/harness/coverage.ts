/**
 * Coverage honesty: how many relevant cases each check saw, and whether it
 * saw every class of final status it is about. A check about final statuses
 * that never met a failed-class order has not shown that failures work: it
 * passes with a note naming the class (a failure under --require-coverage);
 * "not exercised" is kept for a check that judged nothing.
 */
import type { StatusClass, StatusTable } from "../contract/status-codes.ts";
import type { CheckName } from "./checks.ts";

/** Checks judged per final status, what their tallies count, and the status classes each must have met. */
export const STATUS_CLASS_COVERAGE: Partial<Record<CheckName, string>> = {
  webhook_delivered: "webhooks delivered",
  webhook_signature_valid: "webhooks verified",
  webhook_matches_lookup: "webhooks judged",
  status_monotonic: "finals re-read",
  no_double_charge: "settled orders in exact balances",
};

const REQUIRED_CLASSES: readonly StatusClass[] = ["success", "failed"];

export interface Coverage {
  /** Cases per label (status names for checks about final statuses). */
  readonly cases: Readonly<Record<string, number>>;
  /** e.g. "webhooks judged: 37 Success, 6 Failed, 3 Timeout". */
  readonly summary: string;
  /** Status classes a check is about that it never met, e.g. ["failed"]. */
  readonly missing: readonly StatusClass[];
}

export function describeCoverage(
  check: CheckName,
  assertions: number,
  tallies: ReadonlyMap<string, number> | undefined,
  table: StatusTable,
): Coverage {
  const cases = Object.fromEntries(tallies ?? []);
  const noun = STATUS_CLASS_COVERAGE[check];
  if (noun === undefined) {
    const extra = Object.entries(cases).map(([label, count]) => `${count} ${label}`);
    return { cases, summary: [`${assertions} assertions`, ...extra].join(", "), missing: [] };
  }
  const classOf = new Map([...table.values()].map((definition) => [definition.message, definition.class]));
  const seen = new Set<StatusClass>();
  const parts: string[] = [];
  for (const [label, count] of Object.entries(cases)) {
    const statusClass = classOf.get(label);
    if (statusClass === undefined) continue;
    seen.add(statusClass);
    parts.push(`${count} ${label}`);
  }
  return {
    cases,
    summary: `${noun}: ${parts.length === 0 ? "none" : parts.join(", ")}`,
    missing: REQUIRED_CLASSES.filter((statusClass) => !seen.has(statusClass)),
  };
}
