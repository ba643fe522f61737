/** The check catalogue, check selection, and the report formats. */
import { describe, expect, test } from "vitest";
import { createBudget } from "../../src/harness/budget.ts";
import { CheckFailure, createChecker } from "../../src/harness/checker.ts";
import { CHECK_NAMES, CHECKS, selectChecks } from "../../src/harness/checks.ts";
import { formatReplayPath, parseReplayPath } from "../../src/harness/replay.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { coloursFor } from "../../src/report/console.ts";
import { formatConsoleReport } from "../../src/harness/reporters/console-reporter.ts";
import { formatJUnitReport } from "../../src/harness/reporters/junit-reporter.ts";
import { toCurl } from "../../src/harness/transcript.ts";

describe("the check catalogue", () => {
  test("has the fifteen stable names, each with a one-line description", () => {
    expect(CHECK_NAMES).toEqual([
      "response_schema_conformance",
      "status_code_conformance",
      "content_type_conformance",
      "idempotent_replay",
      "payload_mismatch_rejected",
      "no_double_charge",
      "lookup_consistent",
      "status_monotonic",
      "webhook_delivered",
      "webhook_signature_valid",
      "webhook_matches_lookup",
      "auth_required",
      "customer_isolation",
      "negative_input_rejected",
      "never_server_error",
    ]);
    for (const name of CHECK_NAMES) expect(CHECKS[name].description).toMatch(/^[^\n]{20,200}$/);
  });

  test("selection: include, exclude, and unknown names are an error", () => {
    const only = selectChecks({ include: ["idempotent_replay"] });
    expect(only.ok && [...only.checks]).toEqual(["idempotent_replay"]);
    const most = selectChecks({ exclude: ["never_server_error"] });
    expect(most.ok && most.checks.size).toBe(14);
    const typo = selectChecks({ include: ["idempotent_replays"] });
    expect(typo.ok).toBe(false);
  });

  test("a checker asserts only enabled checks, names the check in its failure and records what it exercised", () => {
    const checker = createChecker(new Set(["idempotent_replay"] as const));
    expect(() => checker.that("no_double_charge", false, "ignored")).not.toThrow();
    expect(() => checker.that("idempotent_replay", false, "new id")).toThrow(CheckFailure);
    try {
      checker.that("idempotent_replay", false, "new id");
    } catch (error) {
      expect((error as CheckFailure).check).toBe("idempotent_replay");
    }
    expect([...checker.exercised()]).toEqual(["idempotent_replay"]);
  });
});

describe("budget and replay paths", () => {
  test("the budget refuses a reservation that would exceed it, and reserves nothing then", () => {
    const budget = createBudget(100_00);
    expect(budget.reserve(60_00)).toBe(true);
    expect(budget.reserve(50_00)).toBe(false);
    expect(budget.spentCents()).toBe(60_00);
    expect(budget.reserve(40_00)).toBe(true);
    expect(budget.canSpend(1)).toBe(false);
  });

  test("a --path carries fast-check's path and the commands' replay path", () => {
    const text = formatReplayPath("14:3:12", "GAL:F/x+");
    expect(text).toBe("14:3:12@GAL:F/x+");
    expect(parseReplayPath(text)).toEqual({ path: "14:3:12", replayPath: "GAL:F/x+" });
    expect(parseReplayPath("3:1")).toEqual({ path: "3:1", replayPath: undefined });
    expect(parseReplayPath("nonsense")).toBeUndefined();
  });

  test("curl commands never contain a token, and show the fault as a comment", () => {
    const curl = toCurl(
      {
        method: "POST",
        path: "/v1/airtime",
        headers: { authorization: "Bearer s3cret-token" },
        body: `{"reference":"it's"}`,
        fault: { kind: "drop_response" },
      },
      { baseUrl: "$AIRTIME_URL", secrets: new Map([["s3cret-token", "$AIRTIME_TOKEN"]]) },
    );
    expect(curl).not.toContain("s3cret-token");
    expect(curl).toBe(
      `curl -sS -i -X POST "$AIRTIME_URL/v1/airtime" -H "authorization: Bearer $AIRTIME_TOKEN" --data-raw '{"reference":"it'\\''s"}'  # fault: response lost after the target answered`,
    );
  });
});

const FAILED_REPORT: ContractReport = {
  ok: false,
  seed: 7,
  target: "http://example.test (no admin powers)",
  profile: "strict",
  runsPerProperty: 100,
  modelRuns: 100,
  durationMs: 1234,
  checks: CHECK_NAMES.map((name) =>
    name === "idempotent_replay"
      ? {
          name,
          description: CHECKS[name].description,
          status: "failed" as const,
          failure: {
            check: name,
            property: "model" as const,
            message: 'a retry answered id <b> & "c"',
            seed: 7,
            path: "1:2@AA",
            steps: [{ label: "place order #0", curl: ["curl -sS -i -X POST x"], exchanges: [] }],
            replay: "airtime-harness contract --checks idempotent_replay --property model --seed 7 --path 1:2@AA",
            reproduced: true,
            observed: false,
            shrinkMs: 850,
          },
        }
      : name === "customer_isolation"
        ? { name, description: CHECKS[name].description, status: "skipped" as const, reason: "needs --other-token" }
        : {
            name,
            description: CHECKS[name].description,
            status: "passed" as const,
            properties: ["model" as const],
            coverage: { cases: {}, summary: "3 assertions", missing: [] },
          },
  ),
  properties: [],
  errors: [],
  spent: 0,
  budget: undefined,
  requireCoverage: false,
  timings: { search: 1000, settle: 200 },
};

describe("reports", () => {
  test("the console report shows every verdict, the failure's steps, curl and replay", () => {
    const text = formatConsoleReport(FAILED_REPORT);
    expect(text).toMatch(/✗ idempotent_replay +FAILED/);
    expect(text).toMatch(/- customer_isolation +skipped: needs --other-token/);
    expect(text).toContain("1. place order #0");
    expect(text).toContain("replay: airtime-harness contract --checks idempotent_replay");
    expect(text).toContain("15 checks: 13 passed, 1 failed, 1 skipped");
  });

  test("the console report prints the run's errors before the table", () => {
    const text = formatConsoleReport({ ...FAILED_REPORT, errors: ["model: cannot reach the target"] });
    const error = text.indexOf("error: model: cannot reach the target");
    expect(error).toBeGreaterThan(-1);
    expect(error).toBeLessThan(text.indexOf("idempotent_replay"));
  });

  test("the console report says what would cover the checks that never met a class", () => {
    const checks = FAILED_REPORT.checks.map((check) =>
      check.name === "status_monotonic"
        ? {
            name: check.name,
            description: check.description,
            status: "passed" as const,
            properties: ["model" as const],
            coverage: { cases: { Success: 4 }, summary: "finals re-read: 4 Success", missing: ["failed" as const] },
            notes: ["never met a failed-class final status (finals re-read: 4 Success)"],
          }
        : check,
    );
    const text = formatConsoleReport({ ...FAILED_REPORT, checks });
    expect(text).toContain("passed (finals re-read: 4 Success), but never met a failed-class final status");
    expect(text).toContain("hint: status_monotonic not fully covered; to cover them:");
    expect(text).toContain("raise --runs (now 100)");
    expect(text).toContain("have the target produce failed orders");
    expect(text).toContain("--require-coverage");
    const simulator = formatConsoleReport({ ...FAILED_REPORT, checks, simulator: true, requireCoverage: true });
    expect(simulator).toContain("FAILED (--require-coverage): passed");
    expect(simulator).toContain("serve --failure-rate");
    expect(simulator).toContain("magic test accounts of docs/scenarios.md");
    expect(simulator).toContain("admin powers");
    expect(formatConsoleReport(FAILED_REPORT)).not.toContain("hint:");
  });

  test("the console report is coloured on a terminal, and plain under NO_COLOR or without one", () => {
    const terminal = { isTTY: true, hasColors: () => true };
    const coloured = formatConsoleReport(FAILED_REPORT, { paint: coloursFor(terminal, {}) });
    expect(coloured).toContain("\u001b[31m✗ idempotent_replay");
    expect(coloured).toContain("\u001b[32m✓ ");
    const plainText = formatConsoleReport(FAILED_REPORT);
    expect(formatConsoleReport(FAILED_REPORT, { paint: coloursFor(terminal, { NO_COLOR: "1" }) })).toBe(plainText);
    expect(formatConsoleReport(FAILED_REPORT, { paint: coloursFor({ isTTY: false }, {}) })).toBe(plainText);
    expect(plainText).not.toContain("\u001b");
  });

  test("JUnit XML has a test case per check, escapes text, marks failures and skips", () => {
    const xml = formatJUnitReport(FAILED_REPORT);
    expect(xml.match(/<testcase /g)).toHaveLength(15);
    expect(xml).toContain('failures="1"');
    expect(xml).toContain('skipped="1"');
    expect(xml).toContain("a retry answered id &lt;b&gt; &amp; &quot;c&quot;");
    expect(xml).toContain('<skipped message="needs --other-token"/>');
    expect(xml).not.toMatch(/<b>/);
  });
});
