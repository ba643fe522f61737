/**
 * `compare --json FILE`: the whole comparison as data — every rule with its
 * severity, test and both sides' evidence, the scores, seed, runs and the
 * target's URL (never its token) — checked against the report schema before
 * it is written, so a file that exists is a file the schema describes.
 */
import {
  jsonReportDocument,
  type ReportEnvelope,
  reportEnvelope,
  type RunTimes,
  renderJsonReport,
  runTimesEndingNow,
} from "../report/json-report.ts";
import type { SideObservations } from "./observe.ts";
import type { WebhookObservations } from "./observe-webhooks.ts";
import { type CompareJsonReport, CompareJsonReportSchema, type JsonEvidence } from "./report-schema.ts";
import type { Evidence, RuleResult } from "./rules.ts";
import type { CompareReport } from "./run-compare.ts";
import { divergentSequence } from "./sequence.ts";
import { summarise } from "./statistics.ts";

/** NaN (a quantile of nothing) is no JSON number: it is written as null. */
function figure(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

function jsonEvidence(evidence: Evidence): JsonEvidence {
  if ("interval" in evidence) {
    const { count, n, rate, interval } = evidence;
    return { kind: "rate", count, n, rate, interval: { low: interval.low, high: interval.high } };
  }
  if ("p50" in evidence) {
    const { n, p50, p95, max } = evidence;
    return { kind: "timing", n, p50: figure(p50), p95: figure(p95), max: figure(max) };
  }
  if ("answers" in evidence) {
    const { answers, example } = evidence;
    return { kind: "answers", answers: { ...answers }, ...(example === undefined ? {} : { example }) };
  }
  return { kind: "figures", figures: { ...(evidence as object) } };
}

function jsonRule(report: CompareReport, result: RuleResult): CompareJsonReport["rules"][number] {
  const sequence = divergentSequence(report, result);
  return {
    rule: result.rule,
    operation: result.operation,
    severity: result.severity,
    agrees: result.agrees,
    observations: result.observations,
    test: result.test,
    pValue: result.pValue,
    simulator: jsonEvidence(result.simulator),
    target: jsonEvidence(result.target),
    ...(sequence === undefined ? {} : { sequence: [...sequence] }),
  };
}

/** The receipt totals only; per-order detail stays in the rules' evidence. */
function jsonWebhooks(webhooks: WebhookObservations): NonNullable<CompareJsonReport["sides"]["simulator"]["webhooks"]> {
  const { requests, invalidSignatures, statusChanges, duplicatedChanges, repeatsAfter2xx, eventNames } = webhooks;
  return {
    requests,
    invalidSignatures,
    statusChanges,
    duplicatedChanges,
    repeatsAfter2xx,
    eventNames: { ...eventNames },
  };
}

function jsonSide(side: SideObservations): CompareJsonReport["sides"]["simulator"] {
  const times = summarise(side.finalTimesMs);
  return {
    steps: side.steps.length,
    finals: { ...side.finals },
    finalClasses: { ...side.finalClasses },
    finalTimes: { kind: "timing", n: times.n, p50: figure(times.p50), p95: figure(times.p95), max: figure(times.max) },
    unsettled: side.unsettled,
    ...(side.webhooks === undefined ? {} : { webhooks: jsonWebhooks(side.webhooks) }),
  };
}

/** The target's URL without user name or password, which may hold a credential. */
export function publicUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.href.replace(/\/$/, "");
}

function compareEnvelope(report: CompareReport, times: RunTimes): ReportEnvelope {
  const agreed = report.results.every((result) => result.agrees);
  return reportEnvelope({ command: "compare", version: 1, verdict: agreed ? "passed" : "failed", times });
}

function compareBody(report: CompareReport) {
  const { overall, ...operations } = report.scores;
  return {
    report: "airtime-harness compare",
    seed: report.seed,
    runs: report.runs,
    provider: report.provider,
    target: { url: publicUrl(report.target) },
    scores: {
      overall: overall ?? null,
      operations: Object.fromEntries(Object.entries(operations).map(([name, share]) => [name, share ?? null])),
    },
    ...(report.spending === undefined ? {} : { spending: { ...report.spending } }),
    divergences: report.results.filter((result) => !result.agrees).length,
    rules: report.results.map((result) => jsonRule(report, result)),
    sides: { simulator: jsonSide(report.simulator), target: jsonSide(report.targetSide) },
  };
}

/** The report as data, checked against the schema: what `compare --json` writes. */
export function compareJsonReport(report: CompareReport, times: RunTimes = runTimesEndingNow(0)): CompareJsonReport {
  return jsonReportDocument(compareEnvelope(report, times), compareBody(report), CompareJsonReportSchema);
}

/**
 * @example
 * await writeFile("compare.json", formatCompareJson(report, run.finish()));
 */
export function formatCompareJson(report: CompareReport, times: RunTimes = runTimesEndingNow(0)): string {
  return renderJsonReport(compareEnvelope(report, times), compareBody(report), CompareJsonReportSchema);
}
