/**
 * JUnit XML: one test case per check, so CI systems show each check's
 * verdict; a failure carries the message, the steps, the curl commands and
 * the replay command.
 */
import { type ContractReport, countVerdicts, isNoted } from "../report.ts";

export function formatJUnitReport(report: ContractReport): string {
  const verdicts = countVerdicts(report);
  const counts = report.requireCoverage
    ? { failed: verdicts.failed + verdicts.notExercised + verdicts.noted, skipped: verdicts.skipped }
    : { failed: verdicts.failed, skipped: verdicts.skipped + verdicts.notExercised };
  const seconds = (report.durationMs / 1000).toFixed(3);
  const cases = report.checks.map((check) => {
    const open = `    <testcase classname="airtime-harness.contract" name="${xml(check.name)}" time="0">`;
    switch (check.status) {
      case "passed":
        return report.requireCoverage && isNoted(check)
          ? `${open}\n      <failure message="${xml((check.notes ?? []).join("; "))}" type="coverage_note"/>\n    </testcase>`
          : `${open}</testcase>`;
      case "skipped":
        return `${open}\n      <skipped message="${xml(check.reason)}"/>\n    </testcase>`;
      case "not_exercised":
        return report.requireCoverage
          ? `${open}\n      <failure message="not exercised: ${xml(check.reason)}" type="not_exercised"/>\n    </testcase>`
          : `${open}\n      <skipped message="not exercised: ${xml(check.reason)}"/>\n    </testcase>`;
      case "failed": {
        const { failure } = check;
        const body = [
          failure.message,
          "",
          `property: ${failure.property}, seed ${failure.seed}, path ${failure.path}`,
          ...failure.steps.flatMap((step, index) => [
            `${index + 1}. ${step.label}`,
            ...step.curl.map((c) => `   ${c}`),
          ]),
          "",
          `replay: ${failure.replay}`,
        ].join("\n");
        return `${open}\n      <failure message="${xml(failure.message)}" type="${xml(failure.check)}">${xml(body)}</failure>\n    </testcase>`;
      }
      default:
        return assertNever(check);
    }
  });
  const errors = report.errors.map(
    (error, index) =>
      `    <testcase classname="airtime-harness.contract" name="harness-error-${index + 1}" time="0">\n      <error message="${xml(error)}"/>\n    </testcase>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="airtime-harness contract" tests="${report.checks.length + errors.length}" failures="${counts.failed}" errors="${errors.length}" skipped="${counts.skipped}" time="${seconds}">`,
    `  <testsuite name="contract: ${xml(report.target)}" tests="${report.checks.length + errors.length}" failures="${counts.failed}" errors="${errors.length}" skipped="${counts.skipped}" time="${seconds}">`,
    `    <properties><property name="seed" value="${report.seed}"/><property name="runs" value="${report.runsPerProperty}"/></properties>`,
    ...cases,
    ...errors,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

function xml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function assertNever(value: never): never {
  throw new Error(`unexpected verdict ${JSON.stringify(value)}`);
}
