/**
 * Rules that compare one figure of the simulator with the same figure of the
 * target: a rate (e.g. the share of orders that fail) or a timing
 * distribution (pending → final). A rule diverges only when the difference is
 * both statistically significant at 99 % and large enough to matter, so
 * sampling noise and a few milliseconds of network jitter never count.
 */
import {
  type Interval,
  kolmogorovSmirnov,
  quantile,
  type Summary,
  summarise,
  twoProportionPValue,
  wilsonInterval,
} from "./statistics.ts";

export type Operation = "send" | "replay" | "lookup" | "balance" | "webhook";
export type Severity = "high" | "medium" | "low";

/** Below this p-value a difference is significant (a two-sided test at 99 %). */
const SIGNIFICANCE = 0.01;
/** Rates closer than this (absolute) agree, however many observations. */
const MIN_RATE_GAP = 0.05;
/** Quantiles closer than this (relative) agree: jitter between two hosts is no fidelity gap. */
const MIN_TIMING_GAP = 0.1;
/** Fewer timings than this on either side are not judged. */
const MIN_TIMINGS = 8;

export interface RateEvidence {
  readonly count: number;
  readonly n: number;
  readonly rate: number;
  readonly interval: Interval;
}

/** How often each answer class was seen, and one request that drew the most common one. */
export interface AnswerEvidence {
  readonly answers: Readonly<Record<string, number>>;
  readonly example?: string | undefined;
}

export type Evidence = RateEvidence | Summary | AnswerEvidence;

export interface RuleResult {
  readonly rule: string;
  readonly operation: Operation;
  readonly agrees: boolean;
  readonly severity: Severity;
  /** Observations compared: the smaller side's count, the weight in the fidelity score. */
  readonly observations: number;
  readonly test: string;
  readonly pValue: number;
  readonly simulator: Evidence;
  readonly target: Evidence;
}

function rateEvidence(count: number, n: number): RateEvidence {
  return { count, n, rate: n === 0 ? 0 : count / n, interval: wilsonInterval(count, n) };
}

/** Compares `count` of `n` on each side, e.g. failed orders of all finished orders. */
export function compareRates(
  rule: string,
  operation: Operation,
  simulator: { readonly count: number; readonly n: number },
  target: { readonly count: number; readonly n: number },
): RuleResult {
  const sim = rateEvidence(simulator.count, simulator.n);
  const tgt = rateEvidence(target.count, target.n);
  const pValue = twoProportionPValue(simulator.count, simulator.n, target.count, target.n);
  const agrees = pValue >= SIGNIFICANCE || Math.abs(sim.rate - tgt.rate) < MIN_RATE_GAP;
  return {
    rule,
    operation,
    agrees,
    severity: "medium",
    observations: Math.min(simulator.n, target.n),
    test: "two-proportion z-test, 99 %; rates with Wilson 99 % intervals",
    pValue,
    simulator: sim,
    target: tgt,
  };
}

function relativeGap(a: number, b: number): number {
  const base = Math.max(Math.abs(a), Math.abs(b));
  return base === 0 ? 0 : Math.abs(a - b) / base;
}

/** Each side's observation errors (ms), when its durations were measured by polling: see {@link compareTimings}. */
export interface TimingErrors {
  readonly simulator: readonly number[];
  readonly target: readonly number[];
}

/** The gaps (ms) polling alone can open between the two sides' p50s and p95s. */
interface Tolerance {
  readonly p50: number;
  readonly p95: number;
}

/**
 * Each side's quantile of its observation errors, added: a duration seen by
 * polling lies anywhere within its error, so a quantile moves by up to it.
 * A lag spike stretches the slowest polls most, hence p95 is allowed the
 * upper errors.
 */
function observationTolerance(errors: TimingErrors): Tolerance {
  const of = (values: readonly number[], q: number) => (values.length === 0 ? 0 : quantile(values, q));
  const at = (q: number) => of(errors.simulator, q) + of(errors.target, q);
  return { p50: at(0.5), p95: at(0.95) };
}

/**
 * Compares two samples of durations in ms, e.g. pending → final. With
 * `errors`, a gap no larger than the observation error agrees: it is how
 * late the poller looked (its interval, stretched by this process's
 * event-loop lag under load), not what the target did.
 */
export function compareTimings(
  rule: string,
  operation: Operation,
  simulator: readonly number[],
  target: readonly number[],
  errors?: TimingErrors,
): RuleResult {
  const sim = summarise(simulator);
  const tgt = summarise(target);
  const judged = sim.n >= MIN_TIMINGS && tgt.n >= MIN_TIMINGS;
  const { pValue } = judged ? kolmogorovSmirnov(simulator, target) : { pValue: 1 };
  const gap = Math.max(relativeGap(sim.p50, tgt.p50), relativeGap(sim.p95, tgt.p95));
  const tolerance = errors === undefined ? undefined : observationTolerance(errors);
  const withinError =
    tolerance !== undefined &&
    Math.abs(sim.p50 - tgt.p50) <= tolerance.p50 &&
    Math.abs(sim.p95 - tgt.p95) <= tolerance.p95;
  const stated =
    tolerance === undefined
      ? ""
      : `; gaps within the observation error (p50 ${Math.round(tolerance.p50)} ms, p95 ${Math.round(tolerance.p95)} ms) agree`;
  return {
    rule,
    operation,
    agrees: !judged || pValue >= SIGNIFICANCE || gap < MIN_TIMING_GAP || withinError,
    severity: "low",
    observations: judged ? Math.min(sim.n, tgt.n) : 0,
    test: `two-sample Kolmogorov–Smirnov, 99 %${stated}`,
    pValue,
    simulator: sim,
    target: tgt,
  };
}

/**
 * A rule judged without a statistic (the same answer, the same values, the
 * same shape): its p-value is 1 when the sides agree and 0 when they do not.
 */
export function exactVerdict(result: Omit<RuleResult, "pValue">): RuleResult {
  return { ...result, pValue: result.agrees ? 1 : 0 };
}

function mostCommon(answers: Readonly<Record<string, number>>): string | undefined {
  const sorted = Object.entries(answers).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return sorted[0]?.[0];
}

function total(answers: Readonly<Record<string, number>>): number {
  return Object.values(answers).reduce((sum, count) => sum + count, 0);
}

/**
 * Compares what one condition is answered with (`refused 422 INVALID_REQUEST`,
 * `replayed same id` …): a deterministic answer, so the two sides agree when
 * their most common answers are the same. A different answer to the same
 * request is a broken integration, hence high severity.
 */
export function compareAnswers(
  rule: string,
  operation: Operation,
  simulator: AnswerEvidence,
  target: AnswerEvidence,
): RuleResult {
  const observed = Math.min(total(simulator.answers), total(target.answers));
  const agrees = observed === 0 || mostCommon(simulator.answers) === mostCommon(target.answers);
  return exactVerdict({
    rule,
    operation,
    agrees,
    severity: "high",
    observations: observed,
    test: "the most common answer is the same",
    simulator,
    target,
  });
}

/** A value seen this few times on one side only may be chance; it is not judged. */
const MIN_SEEN = 3;

/**
 * Compares which values were seen at all (e.g. the final statuses reached):
 * a value seen at least {@link MIN_SEEN} times on one side and never on the other diverges.
 */
export function compareSeen(
  rule: string,
  operation: Operation,
  simulator: AnswerEvidence,
  target: AnswerEvidence,
): RuleResult {
  const onlyOn = (one: AnswerEvidence, other: AnswerEvidence) =>
    Object.entries(one.answers).some(([value, count]) => count >= MIN_SEEN && (other.answers[value] ?? 0) === 0);
  const agrees = !onlyOn(simulator, target) && !onlyOn(target, simulator);
  return exactVerdict({
    rule,
    operation,
    agrees,
    severity: "medium",
    observations: Math.min(total(simulator.answers), total(target.answers)),
    test: "the same values are seen",
    simulator,
    target,
  });
}

export type FidelityScores = Readonly<Record<Operation | "overall", number | undefined>>;

/**
 * The share of compared observations that agree, per operation and overall:
 * each rule weighs as many observations as it compared. An operation no rule
 * observed has no score (undefined), rather than a flattering 100 %.
 */
export function fidelityScores(results: readonly RuleResult[]): FidelityScores {
  const share = (subset: readonly RuleResult[]) => {
    const total = subset.reduce((sum, result) => sum + result.observations, 0);
    const agreeing = subset.reduce((sum, result) => sum + (result.agrees ? result.observations : 0), 0);
    return total === 0 ? undefined : agreeing / total;
  };
  const of = (operation: Operation) => share(results.filter((result) => result.operation === operation));
  return {
    send: of("send"),
    replay: of("replay"),
    lookup: of("lookup"),
    balance: of("balance"),
    webhook: of("webhook"),
    overall: share(results),
  };
}
