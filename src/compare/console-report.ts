/**
 * The console report of `compare`: the fidelity scores, then each divergence
 * with its rule, severity, test and both sides' evidence, then the rules that
 * agree, one line each. Plain text: it is read in a terminal and in CI logs.
 */
import type { CompareReport } from "./run-compare.ts";
import type { Evidence, RuleResult } from "./rules.ts";

export function percent(share: number | undefined): string {
  return share === undefined ? "not observed" : `${(share * 100).toFixed(1)} %`;
}

/** One side's evidence in a line: a rate with its interval, a timing summary, or the answers seen. */
export function describeEvidence(evidence: Evidence): string {
  if ("interval" in evidence) {
    const { count, n, rate, interval } = evidence;
    return `${count}/${n} = ${percent(rate)} (99 % Wilson ${percent(interval.low)}–${percent(interval.high)})`;
  }
  if ("p50" in evidence) {
    if (evidence.n === 0) return "no timings";
    return `n=${evidence.n}, p50 ${Math.round(evidence.p50)} ms, p95 ${Math.round(evidence.p95)} ms, max ${Math.round(evidence.max)} ms`;
  }
  const answers = Object.entries(evidence.answers).map(([answer, count]) => `${answer} ×${count}`);
  return answers.length === 0 ? "nothing seen" : answers.join(", ");
}

function exampleLines(evidence: Evidence, side: string): string[] {
  return "example" in evidence && evidence.example !== undefined ? [`      ${side} request: ${evidence.example}`] : [];
}

function divergence(result: RuleResult): string[] {
  return [
    `  ✗ [${result.severity}] ${result.operation}: ${result.rule}`,
    `      simulator: ${describeEvidence(result.simulator)}`,
    `      target:    ${describeEvidence(result.target)}`,
    ...exampleLines(result.simulator, "simulator"),
    ...exampleLines(result.target, "target"),
    `      test: ${result.test}${result.pValue < 1 && result.pValue > 0 ? `, p = ${result.pValue.toPrecision(2)}` : ""}`,
  ];
}

/** What each side's webhook receiver got, signatures that failed included; nothing when none listened. */
function webhookReceipt(report: CompareReport): string[] {
  const sides = [
    ["simulator", report.simulator.webhooks],
    ["target", report.targetSide.webhooks],
  ] as const;
  if (sides.some(([, webhooks]) => webhooks === undefined)) return [];
  const parts = sides.map(
    ([side, webhooks]) => `${side} ${webhooks?.requests} requests, ${webhooks?.invalidSignatures} with a bad signature`,
  );
  return [`webhooks received: ${parts.join(" · ")}`];
}

function spendingLines(report: CompareReport): string[] {
  const { spending } = report;
  if (spending === undefined) return [];
  return [
    `budget KES ${spending.budget}: ${report.runs} of ${spending.runsPlanned} planned runs fit, at most KES ${spending.maxSpend} asked for`,
  ];
}

/**
 * @example
 * console.log(formatCompareReport(report));
 */
export function formatCompareReport(report: CompareReport): string {
  const divergences = report.results.filter((result) => !result.agrees);
  const agreeing = report.results.filter((result) => result.agrees);
  const { scores } = report;
  return [
    `compare: ${report.target} against the simulator speaking ${report.provider}, seed ${report.seed}, ${report.runs} runs`,
    ...spendingLines(report),
    "",
    `fidelity: overall ${percent(scores.overall)}`,
    `  send ${percent(scores.send)} · replay ${percent(scores.replay)} · lookup ${percent(scores.lookup)} · ` +
      `balance ${percent(scores.balance)} · webhook ${percent(scores.webhook)}`,
    ...webhookReceipt(report),
    "",
    divergences.length === 0 ? "no divergence" : `${divergences.length} divergence(s):`,
    ...divergences.flatMap(divergence),
    "",
    "agreeing:",
    ...agreeing.map((result) => `  ✓ ${result.operation}: ${result.rule} (${result.observations} compared)`),
  ].join("\n");
}
