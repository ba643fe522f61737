/**
 * A shrunk failure lists the requests of its own run: model runs judged on
 * one account look up each other's orders to judge the balance, and those
 * lookups are counted in one line instead of listed (console and HTML); a
 * lookup sent again in one step is folded into one line with its count. The
 * JSON report keeps every exchange.
 */
import { describe, expect, it } from "vitest";
import type { CheckFailureReport, FailureStep } from "../../src/harness/report.ts";
import { formatConsoleReport } from "../../src/harness/reporters/console-reporter.ts";
import { foldSteps } from "../../src/harness/reporters/folded-steps.ts";
import { formatHtmlReport } from "../../src/harness/reporters/html-reporter.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { blackBoxTargets, failureOf } from "./black-box-catch.ts";

const target = blackBoxTargets();

/** The references a failure's own orders were placed with. */
function placedReferences(failure: CheckFailureReport): Set<string> {
  const posts = failure.steps.flatMap((step) => step.exchanges).filter((e) => e.request.method === "POST");
  return new Set(posts.map((e) => (JSON.parse(e.request.body ?? "{}") as { reference: string }).reference));
}

/** The order each lookup line of a report names, decoded. */
function lookedUp(text: string): string[] {
  return [...text.matchAll(/-X GET "[^"]*\/v1\/airtime\/([^"?]+)"/g)].map((match) =>
    decodeURIComponent(match[1] as string),
  );
}

describe("a failure on an account other runs share", () => {
  it("lists only its own orders' lookups, counting the others' in one line", async () => {
    const defective = await target("failure_not_refunded", 1);
    const report = await runContract({ ...defective.options, seed: 1, maxFailures: 1, properties: ["model"] });
    const failure = failureOf(report, "no_double_charge") as CheckFailureReport;
    const own = placedReferences(failure);
    const everyLookup = failure.steps.flatMap((step) => step.exchanges).filter((e) => e.request.method === "GET");
    // The evidence holds other runs' lookups: the balance is judged with their orders.
    const others = everyLookup.filter((e) => /\/v1\/airtime\//.test(e.request.path));
    expect(others.length).toBeGreaterThan(own.size);

    const consoleText = formatConsoleReport(report);
    expect(lookedUp(consoleText).length).toBeGreaterThan(0);
    for (const reference of lookedUp(consoleText)) expect(own).toContain(reference);
    expect(consoleText).toMatch(/\(\d+ lookups? of orders other runs placed on the same account, left out/);

    const html = formatHtmlReport(report);
    for (const reference of lookedUp(html.replaceAll("&quot;", '"'))) expect(own).toContain(reference);
    expect(html).toContain("other runs placed on the same account");
  }, 120_000);
});

describe("a lookup sent again in one step", () => {
  it("is one line with its count and its last answer", () => {
    const lookup = (status: number) => ({
      request: { method: "GET", path: "/v1/airtime/r-1", headers: {} },
      response: { kind: "response" as const, status: 200, headers: {}, body: JSON.stringify({ status }) },
    });
    const place = {
      request: { method: "POST", path: "/v1/airtime", headers: {}, body: '{"reference":"r-1"}' },
      response: { kind: "response" as const, status: 200, headers: {}, body: "{}" },
    };
    const steps: FailureStep[] = [
      { label: "place r-1", curl: ["curl POST"], exchanges: [place] },
      { label: "poll r-1", curl: ["curl GET r-1", "curl GET r-1", "curl GET r-1"], exchanges: [0, 0, 20].map(lookup) },
    ];
    const [, poll] = foldSteps(steps);
    expect(poll?.requests).toHaveLength(1);
    expect(poll?.requests[0]?.times).toBe(3);
    expect(poll?.requests[0]?.exchange?.response).toMatchObject({ body: '{"status":20}' });
    expect(poll?.otherRunsLookups).toBe(0);
  });
});
