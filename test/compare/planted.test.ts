/**
 * One planted divergence at a time, in a target seen only over HTTP: each
 * must be reported under its own rule, and under no other.
 */
import { afterEach, describe, expect, test } from "vitest";
import { formatCompareReport } from "../../src/compare/console-report.ts";
import type { WebhookRecorder } from "../../src/compare/observe-webhooks.ts";
import { type CompareReport, runCompare } from "../../src/compare/run-compare.ts";
import { WEBHOOK_RULES } from "../../src/compare/judge.ts";
import type { ScenarioFileInput } from "../../src/scenarios/schema.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());

interface Compared {
  readonly rules: string[];
  readonly report: string;
  readonly compared: CompareReport;
}

async function compareWith(
  target: string,
  runs = 8,
  webhooks: { readonly recorder?: WebhookRecorder; readonly reference?: SimulatorOptions } = {},
): Promise<Compared> {
  const report = await runCompare({
    target,
    token: TARGET_TOKEN,
    seed: 7,
    runs,
    settleMs: 10_000,
    reference: { ...REFERENCE_SETTINGS, ...webhooks.reference },
    targetWebhooks: webhooks.recorder,
    // The target that never tells a Timeout makes this wait run out: keep it short.
    webhookTimeoutMs: 2_000,
  });
  const rules = report.results.filter((result) => !result.agrees).map((result) => result.rule);
  return { rules, report: formatCompareReport(report), compared: report };
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

  test("a lookup that shows a pending order as not found", async () => {
    const upstream = await targets.simulator({ seed: 11 });
    // The target answers a pending order's lookup as it answers an unknown reference.
    const proxy = await targets.rewritingProxy(upstream, (answer) => {
      const lookup = answer.method === "GET" && answer.path.startsWith("/v1/airtime/") && answer.status === 200;
      if (!lookup || (JSON.parse(answer.body) as { status?: number }).status !== 0) return answer;
      const notFound = {
        title: "Not found",
        status: 404,
        detail: "No order of yours has this reference.",
        code: "not_found",
      };
      return { status: 404, body: JSON.stringify(notFound) };
    });
    const { rules, report } = await compareWith(proxy);
    expect(rules, report).toEqual(["a placed order is found"]);
  });

  test("an extra final status the simulator never uses", async () => {
    // Enough failures on both sides, at the same rate, for the statuses to count.
    const failing = { failureRate: 0.3 };
    const upstream = await targets.simulator({ seed: 11, ...failing });
    // The target ends its failed orders in Expired (18), a failed status the simulator never reaches.
    const proxy = await targets.rewritingProxy(upstream, (answer) => {
      if (answer.method !== "GET" || !answer.path.startsWith("/v1/airtime/") || answer.status !== 200) return answer;
      const order = JSON.parse(answer.body) as { status?: number; message?: string };
      if (order.status !== 2) return answer;
      return { status: 200, body: JSON.stringify({ ...order, status: 18, message: "Expired" }) };
    });
    const { rules, report } = await compareWith(proxy, 30, { reference: failing });
    expect(rules, report).toEqual(["final statuses reached"]);
    expect(report).toContain("Expired");
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

/** Orders of 600 KES and more time out (6) on both sides, so both reach Timeout as often. */
function timeoutScenario(webhook?: { readonly drop?: boolean }): SimulatorOptions {
  const definition: ScenarioFileInput = {
    name: "large-orders-time-out",
    description: "Orders of 600 KES and more end in Timeout.",
    rules: [
      {
        name: "timeout",
        match: { amount: { min: 600 } },
        effects: { outcome: { status: 6 }, ...(webhook === undefined ? {} : { webhook }) },
      },
    ],
  };
  return { scenarios: { definitions: [definition], active: [definition.name] } };
}

function evidenceOf(report: CompareReport, rule: string, side: "simulator" | "targetSide"): unknown {
  const result = report.results.find((candidate) => candidate.rule === rule);
  return side === "simulator" ? result?.simulator : result?.target;
}

describe("a planted webhook divergence is reported under its rule and nothing else", () => {
  test("no webhook for Timeout", async () => {
    const { url, webhooks } = await targets.simulatorWithWebhooks({ seed: 11, ...timeoutScenario({ drop: true }) });
    const { rules, report, compared } = await compareWith(url, 8, {
      recorder: webhooks,
      reference: timeoutScenario(),
    });
    expect(rules, report).toEqual([WEBHOOK_RULES.perFinalStatus]);
    expect(report).toMatch(/simulator: .*Timeout: 1 per order ×\d+/);
    expect(report).toMatch(/target: .*Timeout: 0 per order ×\d+/);
    // The other finals were told on both sides: only Timeout differs.
    expect(evidenceOf(compared, WEBHOOK_RULES.perFinalStatus, "targetSide")).toMatchObject({
      answers: { "Success: 1 per order": expect.any(Number) },
    });
    expect(compared.scores.webhook).toBeLessThan(1);
  });

  test("a webhook delivered three times when the simulator sends it once", async () => {
    const thrice: ScenarioFileInput = {
      name: "every-webhook-thrice",
      description: "Each webhook is sent twice more under its delivery id.",
      rules: [{ name: "thrice", match: {}, effects: { webhook: { duplicate: 2 } } }],
    };
    const { url, webhooks } = await targets.simulatorWithWebhooks({
      seed: 11,
      scenarios: { definitions: [thrice], active: [thrice.name] },
    });
    const { rules, report, compared } = await compareWith(url, 8, { recorder: webhooks });
    expect(rules, report).toEqual([WEBHOOK_RULES.arrivals]);
    const target = compared.targetSide.webhooks;
    expect(target?.arrivalsPerDelivery).toEqual({ "3": target?.statusChanges });
    expect(target?.repeatsAfter2xx).toBe(2 * (target?.statusChanges ?? 0));
    expect(compared.simulator.webhooks?.arrivalsPerDelivery).toEqual({
      "1": compared.simulator.webhooks?.statusChanges,
    });
    expect(report).toMatch(/target: .*delivered 3× ×\d+, repeats after a 2xx ×\d+/);
  });
});
