/**
 * One planted divergence at a time, in a target seen only over HTTP: each
 * must be reported under its own rule, and under no other.
 */
import { afterEach, describe, expect, test } from "vitest";
import { formatCompareReport } from "../../src/compare/console-report.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());

async function compareWith(target: string, runs = 8): Promise<{ rules: string[]; report: string }> {
  const report = await runCompare({
    target,
    token: TARGET_TOKEN,
    seed: 7,
    runs,
    settleMs: 10_000,
    reference: REFERENCE_SETTINGS,
  });
  const rules = report.results.filter((result) => !result.agrees).map((result) => result.rule);
  return { rules, report: formatCompareReport(report) };
}

interface Planted {
  readonly difference: SimulatorOptions;
  readonly rule: string;
  readonly runs?: number;
}

const planted: readonly (readonly [string, Planted])[] = [
  ["finals twice as slow", { difference: { timing: "lognormal:240ms,0.3" }, rule: "pending → final time" }],
  ["30 % failures instead of 10 %", { difference: { failureRate: 0.3 }, rule: "failed share of finals", runs: 30 }],
  [
    "422 instead of 400 for invalid input",
    {
      difference: {
        provider: {
          profile: 1,
          http: { invalidInput: 422, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
        },
      },
      rule: "invalid input: HTTP status and error code",
    },
  ],
  [
    "a different error code for an unknown reference",
    {
      difference: { provider: { profile: 1, errorCodes: { notFound: "unknown_reference" } } },
      rule: "an unknown reference: HTTP status and error code",
    },
  ],
];

describe("a planted divergence is reported under its rule and nothing else", () => {
  test.each(planted)("%s", async (_name, { difference, rule, runs }) => {
    const target = await targets.simulator({ seed: 11, ...difference });
    const { rules, report } = await compareWith(target, runs);
    // The report is the failure message: a wrong verdict shows both sides' evidence.
    expect(rules, report).toEqual([rule]);
  });

  test("ids, times and request ids alone differ: no divergence", async () => {
    const upstream = await targets.simulator({ seed: 11 });
    const proxy = await targets.renamingProxy(upstream);
    const placed = await fetch(`${proxy}/v1/airtime`, {
      method: "POST",
      headers: { authorization: `Bearer ${TARGET_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ account: "0712345678", amount: 50, currency: "KES", reference: "proxy-check-1" }),
    });
    expect(((await placed.json()) as { id: string }).id).toMatch(/^TX\d+$/); // the proxy does rename
    const { rules, report } = await compareWith(proxy);
    expect(rules, report).toEqual([]);
  });
});
