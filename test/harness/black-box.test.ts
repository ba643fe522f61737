/**
 * Against black-box targets (real clock, fast random finals, some failures,
 * no admin powers): money, final statuses and webhooks. Each planted defect
 * is caught by the right check, by name, within the default run count, over
 * five seeds, and every failure report says whether its replay reproduced
 * it; a failure that cannot be replayed is reported as observed.
 */
import { expect, test } from "vitest";
import type { CheckFailureReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { blackBoxTargets, describeCaughtOverSeeds, failureOf } from "./black-box-catch.ts";

describeCaughtOverSeeds([
  "failure_not_refunded",
  "failure_refunded_twice",
  "failed_then_success",
  "no_webhook_for_failures",
  "timeout_webhook_says_failed",
]);

const target = blackBoxTargets();

test("a failure that does not replay is reported as observed, with its steps and curl lines, and is not shrunk", async () => {
  const flaky = await target("server_error_once", 1);
  const report = await runContract({ ...flaky.options, seed: 1, maxFailures: 1, properties: ["model"] });
  const failure = failureOf(report, "never_server_error") as CheckFailureReport;
  expect(failure.reproduced).toBe(false);
  expect(failure.observed).toBe(true);
  expect(failure.shrinkMs).toBe(0);
  expect(failure.steps.flatMap((step) => step.curl).some((curl) => curl.includes("POST"))).toBe(true);
}, 60_000);
