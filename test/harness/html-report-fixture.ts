/**
 * A failed run whose every target-provided string is hostile markup: if any
 * of it reached the HTML report unescaped, a script would run (and set
 * `window.pwned`) or an element would appear.
 */
import { CHECK_NAMES, CHECKS, type CheckName } from "../../src/harness/checks.ts";
import type { CheckFailureReport, CheckVerdict, ContractReport } from "../../src/harness/report.ts";

export const HOSTILE = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`;

const AUTHORIZATION = { authorization: "Bearer $AIRTIME_TOKEN" };

const FAILURE: CheckFailureReport = {
  check: "webhook_matches_lookup",
  property: "model",
  message: `ref-1: the webhook disagrees with GET /v1/airtime/ref-1: message ${HOSTILE}`,
  seed: 42,
  path: "3:1@AB",
  steps: [
    {
      label: `place order #0 (${HOSTILE})`,
      curl: [
        `curl -sS -i -X POST "$AIRTIME_URL/v1/airtime" -H "authorization: Bearer $AIRTIME_TOKEN" --data-raw '{"reference":"ref-1"}'`,
      ],
      exchanges: [
        {
          request: {
            method: "POST",
            path: "/v1/airtime",
            headers: { ...AUTHORIZATION, "content-type": "application/json" },
            body: `{"reference":"ref-1"}`,
          },
          response: {
            kind: "response",
            status: 200,
            headers: { "content-type": "application/json", "x-evil": HOSTILE },
            body: JSON.stringify({ id: "ord_1", reference: "ref-1", status: 0, message: HOSTILE }),
          },
          startedAt: 1_764_410_000_000,
          durationMs: 42,
        },
      ],
    },
    {
      label: "wait for the webhook",
      curl: [`curl -sS -i -X GET "$AIRTIME_URL/v1/airtime/ref-1" -H "authorization: Bearer $AIRTIME_TOKEN"`],
      exchanges: [
        {
          request: {
            method: "GET",
            path: "/v1/airtime/ref-1",
            headers: AUTHORIZATION,
            fault: "response lost after the target answered",
          },
          response: { kind: "network_error", code: "ECONNRESET", message: HOSTILE },
          startedAt: 1_764_410_000_350,
          durationMs: 10_000,
        },
      ],
    },
  ],
  replay: "airtime-harness contract --checks webhook_matches_lookup --property model --seed 42 --path 3:1@AB",
  reproduced: true,
  observed: false,
  shrinkMs: 1200,
  diff: {
    expectedLabel: "GET /v1/airtime/ref-1",
    actualLabel: `webhook ${HOSTILE}`,
    expected: { id: "ord_1", reference: "ref-1", status: 20, message: "Success" },
    actual: { id: "ord_1", reference: "ref-1", status: 2, message: HOSTILE },
  },
};

const VERDICTS: Partial<Record<CheckName, CheckVerdict>> = {
  webhook_matches_lookup: {
    name: "webhook_matches_lookup",
    description: CHECKS.webhook_matches_lookup.description,
    status: "failed",
    failure: FAILURE,
  },
  customer_isolation: {
    name: "customer_isolation",
    description: CHECKS.customer_isolation.description,
    status: "skipped",
    reason: `because ${HOSTILE}`,
  },
};

function passed(name: CheckName): CheckVerdict {
  const coverage = { cases: {}, summary: "12 assertions", missing: [] };
  return { name, description: CHECKS[name].description, status: "passed", properties: ["model"], coverage };
}

export const HOSTILE_REPORT: ContractReport = {
  ok: false,
  seed: 42,
  target: `http://evil.test/${HOSTILE}`,
  profile: "strict",
  runsPerProperty: 20,
  modelRuns: 20,
  durationMs: 5432,
  checks: CHECK_NAMES.map((name) => VERDICTS[name] ?? passed(name)),
  properties: [{ name: "model", summary: "model-based runs", runs: 20, status: "failed", reason: HOSTILE }],
  errors: [`cleanup: ${HOSTILE}`],
  spent: 0,
  budget: undefined,
  requireCoverage: false,
  timings: { search: 4000, shrink: 1200 },
};
