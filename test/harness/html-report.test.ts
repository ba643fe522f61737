/**
 * `formatHtmlReport`: one self-contained page with every verdict and, for a
 * failure, its steps (request, response, curl), the diff and the replay —
 * and nothing the target said can become markup.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import type { CheckFailureReport } from "../../src/harness/report.ts";
import { formatHtmlReport } from "../../src/harness/reporters/html-reporter.ts";
import { escapeHtml } from "../../src/report/markup.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { toExchangeRecord } from "../../src/harness/transcript.ts";
import { type BrokenTarget, startBrokenTarget } from "./broken-targets.ts";
import { HOSTILE, HOSTILE_REPORT } from "./html-report-fixture.ts";

const open: BrokenTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

const page = formatHtmlReport(HOSTILE_REPORT);
const failure = (HOSTILE_REPORT.checks.find((c) => c.status === "failed") as { failure: CheckFailureReport }).failure;

describe("the HTML report of a failed run", () => {
  test("shows every check with its verdict, and links the failed one to its failure", () => {
    for (const check of HOSTILE_REPORT.checks) expect(page).toContain(`<code>${check.name}</code>`);
    expect(page).toContain('<a href="#failure-webhook_matches_lookup"><code>webhook_matches_lookup</code></a>');
    expect(page).toMatch(/<span class="verdict failed">FAILED<\/span>/);
    expect(page).toContain("12 assertions");
    expect(page).toContain("15 checks: 13 passed, 1 failed, 1 skipped");
  });

  test("shows the failure's steps in details, each request with its response and its curl line", () => {
    expect(page).toContain(`<summary>1. ${escapeHtml(failure.steps[0]?.label ?? "")}</summary>`);
    expect(page).toContain("<summary>2. wait for the webhook</summary>");
    for (const curl of failure.steps.flatMap((step) => step.curl)) expect(page).toContain(escapeHtml(curl));
    expect(page).toContain("POST /v1/airtime → 200");
    expect(page).toContain(escapeHtml(`x-evil: ${HOSTILE}`));
    expect(page).toContain("GET /v1/airtime/ref-1 → ECONNRESET");
    expect(page).toContain("(fault: response lost after the target answered)");
  });

  test("shows the diff between the lookup and the webhook, line by line", () => {
    expect(page).toContain("− expected: GET /v1/airtime/ref-1");
    expect(page).toMatch(/<del class="diff-line">.*&quot;status&quot;: 20<\/del>/);
    expect(page).toMatch(/<ins class="diff-line">.*&quot;status&quot;: 2<\/ins>/);
    expect(page).toMatch(/<del class="diff-line">.*&quot;message&quot;: &quot;Success&quot;,<\/del>/);
    // Fields that agree are shown once, as context.
    expect(page.match(/&quot;reference&quot;: &quot;ref-1&quot;/g)).toHaveLength(1);
  });

  test("shows the replay command, the run's target, profile, seed and timing", () => {
    expect(page).toContain(`<code>${failure.replay}</code>`);
    expect(page).toContain("<dt>Profile</dt><dd>strict</dd>");
    expect(page).toContain("<dt>Seed</dt><dd>42</dd>");
    expect(page).toContain("<dt>Duration</dt><dd>5.4 s</dd>");
    expect(page).toMatch(/<td>search<\/td><td class="num">4\.0 s<\/td>/);
  });

  test("escapes everything the target said: the only scripts are the page's own, each allowed by its hash", () => {
    // uPlot, its chart drawer and the report's buttons run; the timeline's JSON data block never does.
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? "");
    expect(scripts).toHaveLength(3);
    expect(page.match(/<script/gi)).toHaveLength(4);
    expect(page.match(/<script type="application\/json">/g)).toHaveLength(1);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toMatch(/onerror="/);
    expect(page).toContain(escapeHtml(HOSTILE));
    const hashes = scripts.map((script) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(page).toContain(escapeHtml(`script-src ${hashes.join(" ")}`));
    expect(page).toContain(escapeHtml("default-src 'none'"));
  });

  test("is self-contained: no asset or link leaves the page", () => {
    // An attribute, not the escaped text of the hostile markup.
    expect(page).not.toMatch(/<[a-z][^>]*\ssrc=/i);
    const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? "");
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^(#|data:)/);
  });
});

describe("what a failure records for the report", () => {
  test("an exchange keeps request and response with secrets as shell variables and long bodies cut", () => {
    const record = toExchangeRecord(
      {
        request: {
          method: "POST",
          path: "/v1/airtime",
          headers: { authorization: "Bearer s3cret", "x-harness-request": "7" },
          body: `{"token":"s3cret"}`,
        },
        outcome: {
          kind: "response",
          status: 201,
          headers: { "x-echo": "s3cret" },
          text: `{"echo":"s3cret","pad":"${"x".repeat(3000)}"}`,
          json: undefined,
        },
        startedAt: 1_700_000_000_000,
        durationMs: 12.4,
      },
      { secrets: new Map([["s3cret", "$AIRTIME_TOKEN"]]) },
    );
    expect(JSON.stringify(record)).not.toContain("s3cret");
    expect(record.request.headers).toEqual({ authorization: "Bearer $AIRTIME_TOKEN" });
    expect(record.request.body).toBe(`{"token":"$AIRTIME_TOKEN"}`);
    expect(record.response.kind === "response" && record.response.body).toMatch(/…\(\d+ bytes\)$/);
    expect([record.startedAt, record.durationMs]).toEqual([1_700_000_000_000, 12]);
  });

  test("a webhook that disagrees with the lookup fails with both bodies as the diff, and every step's responses", async () => {
    const target = await startBrokenTarget("webhook_status_differs");
    open.push(target);
    const report = await runContract({
      ...target.options,
      runs: 40,
      seed: 99,
      maxFailures: 1,
      properties: ["model"],
      // The diff and the steps' responses are judged, not how small the case gets: it is not shrunk.
      shrinkTimeMs: 0,
    });
    const verdict = report.checks.find((check) => check.name === "webhook_matches_lookup");
    expect(verdict?.status).toBe("failed");
    const found = (verdict as { failure: CheckFailureReport }).failure;
    expect(found.diff?.expected).toMatchObject({ status: 20 });
    expect(found.diff?.actual).toMatchObject({ status: 2 });
    expect(found.diff?.expectedLabel).toMatch(/^GET \/v1\/airtime\//);
    for (const step of found.steps) expect(step.exchanges).toHaveLength(step.curl.length);
    expect(found.steps.flatMap((step) => step.exchanges).some((e) => e.response.kind === "response")).toBe(true);
    expect(JSON.stringify(found.steps)).not.toMatch(/Bearer (?!\$)/);
    const html = formatHtmlReport(report);
    expect(html).toMatch(/<del class="diff-line">.*&quot;status&quot;: 20/);
    expect(html).toMatch(/<ins class="diff-line">.*&quot;status&quot;: 2/);
  });

  test("a lookup that disagrees with the order as placed fails with the order and the lookup as the diff", async () => {
    const target = await startBrokenTarget("lookup_reports_other_amount");
    open.push(target);
    const report = await runContract({ ...target.options, runs: 40, seed: 99, maxFailures: 1, properties: ["model"] });
    const verdict = report.checks.find((check) => check.name === "lookup_consistent");
    expect(verdict?.status).toBe("failed");
    const { diff } = (verdict as { failure: CheckFailureReport }).failure;
    const placed = diff?.expected as { amount: number; reference: string };
    expect(diff?.actual).toEqual({ ...placed, amount: placed.amount + 1 });
    expect(diff?.actualLabel).toBe(`GET /v1/airtime/${placed.reference}`);
  });
});

test("markdown code spans in descriptions and messages render as code, with no raw backticks, and stay escaped", () => {
  const checks = HOSTILE_REPORT.checks.map((check, index) =>
    index === 0
      ? { ...check, description: "a problem's `status` and `code` match; `<script>x</script>` is text" }
      : check,
  );
  const rendered = formatHtmlReport({ ...HOSTILE_REPORT, checks });
  expect(rendered).toContain("<code>status</code> and <code>code</code> match");
  expect(rendered).toContain("<code>&lt;script&gt;x&lt;/script&gt;</code> is text");
  const body = rendered.slice(rendered.indexOf("<body"));
  const visible = body.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<pre[\s\S]*?<\/pre>/g, "");
  expect(visible).not.toContain("`status`");
  for (const check of HOSTILE_REPORT.checks) expect(visible).not.toContain(`\`${check.name}\``);
});
