import { describe, expect, it } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { CHECK_NAMES, type CheckName } from "../../src/harness/checks.ts";
import {
  decideVerdicts,
  emptyAggregate,
  unavailableChecks,
  type VerdictInput,
} from "../../src/harness/contract-verdicts.ts";
import { type CheckFailureReport, isRunOk } from "../../src/harness/report.ts";

const provider = compileProfile(undefined);
const failure = { check: "idempotent_replay", message: "second answer differed" } as unknown as CheckFailureReport;

function input(overrides: Partial<VerdictInput> = {}): VerdictInput {
  return {
    seen: emptyAggregate(),
    finished: true,
    selected: new Set(CHECK_NAMES),
    unavailable: new Map(),
    maxFailures: Number.POSITIVE_INFINITY,
    propertiesChosen: false,
    budgetRefusals: 0,
    provider,
    webhooks: undefined,
    ...overrides,
  };
}

function statusOf(verdicts: ReturnType<typeof decideVerdicts>, name: CheckName): string {
  return verdicts.find((verdict) => verdict.name === name)?.status ?? "missing";
}

describe("decideVerdicts", () => {
  it("gives one verdict per check, in order, and never exercised checks are not passed", () => {
    const verdicts = decideVerdicts(input());
    expect(verdicts.map((verdict) => verdict.name)).toEqual([...CHECK_NAMES]);
    expect(new Set(verdicts.map((verdict) => verdict.status))).toEqual(new Set(["not_exercised"]));
  });

  it("keeps a failure even when the run stopped early, and skips the rest", () => {
    const seen = emptyAggregate();
    seen.failures.set("idempotent_replay", failure);
    const verdicts = decideVerdicts(input({ seen, finished: false }));
    expect(statusOf(verdicts, "idempotent_replay")).toBe("failed");
    const others = verdicts.filter((verdict) => verdict.name !== "idempotent_replay");
    expect(others.every((verdict) => verdict.status === "skipped" && verdict.reason === "the run stopped early")).toBe(
      true,
    );
  });

  it("says why a check was skipped: not selected, unavailable, stopped by --max-failures", () => {
    const seen = emptyAggregate();
    seen.failures.set("idempotent_replay", failure);
    const unavailable = unavailableChecks({
      profile: "strict",
      inProfile: new Set(CHECK_NAMES),
      hasReceiver: false,
      signingGiven: false,
      hasOtherCustomer: false,
    });
    const verdicts = decideVerdicts(
      input({ seen, unavailable, maxFailures: 1, selected: new Set(CHECK_NAMES.filter((n) => n !== "auth_required")) }),
    );
    const reasonOf = (name: CheckName) => {
      const verdict = verdicts.find((v) => v.name === name);
      return verdict?.status === "skipped" ? verdict.reason : verdict?.status;
    };
    expect(reasonOf("auth_required")).toMatch(/not selected/);
    expect(reasonOf("webhook_delivered")).toMatch(/--webhook-listen/);
    expect(reasonOf("customer_isolation")).toMatch(/--other-token/);
    expect(reasonOf("no_double_charge")).toMatch(/--max-failures/);
  });

  it("passes a check that judged cases but never met a class, with a note naming it; --require-coverage fails it", () => {
    const seen = emptyAggregate();
    seen.exercised.set("webhook_matches_lookup", new Set(["model"]));
    seen.assertions.set("webhook_matches_lookup", 62);
    seen.tallies.set("webhook_matches_lookup", new Map([["Success", 62]]));
    const verdicts = decideVerdicts(input({ seen }));
    const verdict = verdicts.find((v) => v.name === "webhook_matches_lookup");
    expect(verdict?.status).toBe("passed");
    expect(verdict?.status === "passed" && verdict.notes).toEqual([
      "never met a failed-class final status (webhooks judged: 62 Success)",
    ]);
    const judged = verdicts.filter((v) => v.name === "webhook_matches_lookup");
    expect(isRunOk(judged, [], false)).toBe(true);
    expect(isRunOk(judged, [], true)).toBe(false);
  });

  it('keeps "not exercised" for a check that judged nothing, and carries a rule\'s note on a passed check', () => {
    const seen = emptyAggregate();
    seen.exercised.set("response_schema_conformance", new Set(["status-codes"]));
    seen.assertions.set("response_schema_conformance", 3);
    seen.notes.set("response_schema_conformance", new Set(["the §7 insufficient-balance rule was not provoked: …"]));
    const verdicts = decideVerdicts(input({ seen }));
    const rule = verdicts.find((v) => v.name === "response_schema_conformance");
    expect(rule?.status === "passed" && rule.notes).toEqual(["the §7 insufficient-balance rule was not provoked: …"]);
    expect(statusOf(verdicts, "webhook_delivered")).toBe("not_exercised");
  });
});
