/**
 * Checks a scenario's statuses against the status table in use: a status the
 * table does not define, or a path the lifecycle forbids (a final status
 * never changes, except Success → Reversed), is a load error, not a surprise
 * at run time.
 */
import { isAllowedTransition, PENDING_STATUS, REVERSED_STATUS, type StatusTable } from "../contract/status-codes.ts";
import type { ScenarioDefinition } from "./schema.ts";

export interface PathedIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

export function checkScenarioStatuses(scenario: ScenarioDefinition, table: StatusTable): PathedIssue[] {
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
