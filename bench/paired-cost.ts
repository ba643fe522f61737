/**
 * CPU per POST of two servers, read robustly enough for a 5 % difference
 * on a shared machine: many short rounds, each server's own CPU time per
 * request from /proc (not req/s, which the neighbours set), a ratio per
 * round and the median of the ratios, every round printed. In a round both
 * servers are loaded at the same time, each by its own `wrk`, so a
 * neighbour's burst lands on both (`sequential`: one after the other, which
 * goes first alternating). Background work (finalising, packing) lands in
 * whichever round it runs in, so the ratio of the sums over all rounds is
 * printed too, and each server's marginal cost per request (the slope of CPU
 * time over requests across the rounds). Used by `npm run bench` (`BENCH_DIALECTS=1`) and
 * `bench/cost-ab.ts`.
 */
import { loadWithWrk } from "./load.ts";
import { cpuSeconds } from "./process-cpu.ts";
import { median } from "./soak-verdict.ts";

interface Loaded {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
}

export interface PairedCostOptions {
  readonly rounds: number;
  readonly seconds: number;
  readonly connections: number;
  readonly sequential?: boolean;
  /** The bar on `now ÷ before`, if any. */
  readonly goalAtMost?: number;
  /** A bar on the throughput, `now ÷ before` req/s, median of the rounds; printed with it. */
  readonly throughputAtLeast?: number;
}

export interface PairedCost {
  readonly medianRatio: number;
  /** Requests each server served, warm-up included (a profile's samples cover it too). */
  readonly served: { readonly before: number; readonly now: number };
}

interface Measured {
  readonly cpuUs: number;
  readonly rps: number;
  readonly requests: number;
}

let measurement = 0;

async function measure(target: Loaded, options: PairedCostOptions): Promise<Measured> {
  const before = cpuSeconds(target.pid);
  const load = { url: target.url, endpoint: "post" as const, durationS: options.seconds };
  const result = await loadWithWrk({ ...load, connections: options.connections, prefix: `pair${++measurement}-` });
  const after = cpuSeconds(target.pid);
  if (before === undefined || after === undefined) throw new Error("no /proc: CPU time cannot be read here");
  const cpuUs = ((after - before) * 1e6) / Math.max(1, result.requests);
  return { cpuUs, rps: result.rps, requests: result.requests };
}

async function measureRound(
  round: number,
  before: Loaded,
  now: Loaded,
  options: PairedCostOptions,
): Promise<[Measured, Measured]> {
  if (options.sequential !== true) return Promise.all([measure(before, options), measure(now, options)]);
  if (round % 2 === 0) return [await measure(before, options), await measure(now, options)];
  const n = await measure(now, options);
  return [await measure(before, options), n];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

/**
 * The slope of CPU time over requests across rounds of equal length, in µs:
 * what one more request costs, without the part that is paid per second
 * whatever the throughput (timers, background work catching up, the
 * collector's own pace). On a busy machine a round that got fewer requests
 * spreads that part over fewer of them, which is most of the rounds' spread.
 */
function marginalUs(rounds: readonly Measured[]): number {
  const xs = rounds.map((m) => m.requests);
  const ys = rounds.map((m) => m.cpuUs * m.requests);
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const [mx, my] = [mean(xs), mean(ys)];
  const covariance = xs.reduce((sum, x, i) => sum + (x - mx) * ((ys[i] as number) - my), 0);
  const variance = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  return variance === 0 ? NaN : covariance / variance;
}

/** Runs the rounds after one warm-up round, printing each with `label`, and the summary. */
export async function pairedCost(
  label: string,
  before: Loaded,
  now: Loaded,
  options: PairedCostOptions,
): Promise<PairedCost> {
  // Warm-up: the JIT, the maps and the scheduler's queue reach their working shape.
  const warm = await Promise.all([measure(before, options), measure(now, options)]);
  const served = { before: warm[0].requests, now: warm[1].requests };
  const ratios: number[] = [];
  const throughputRatios: number[] = [];
  const measured = { before: [] as Measured[], now: [] as Measured[] };
  const sums = { beforeCpu: 0, nowCpu: 0, beforeRequests: 0, nowRequests: 0 };
  for (let round = 1; round <= options.rounds; round++) {
    const [b, n] = await measureRound(round, before, now, options);
    ratios.push(n.cpuUs / b.cpuUs);
    throughputRatios.push(n.rps / b.rps);
    measured.before.push(b);
    measured.now.push(n);
    served.before += b.requests;
    served.now += n.requests;
    sums.beforeCpu += b.cpuUs * b.requests;
    sums.nowCpu += n.cpuUs * n.requests;
    sums.beforeRequests += b.requests;
    sums.nowRequests += n.requests;
    console.log(
      `  ${label} round ${round}: ${before.name} ${fixed(b.cpuUs)} µs (${fixed(b.rps, 0)} req/s), ` +
        `${now.name} ${fixed(n.cpuUs)} µs (${fixed(n.rps, 0)} req/s), ratio ${fixed(n.cpuUs / b.cpuUs, 3)}`,
    );
  }
  const quartiles = (values: readonly number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    return `quartiles ${fixed(at(0.25), 3)}–${fixed(at(0.75), 3)}`;
  };
  const ratio = median(ratios);
  const goal =
    options.goalAtMost === undefined
      ? ""
      : `; goal ≤ ${options.goalAtMost}× — ${ratio <= options.goalAtMost ? "meets the goal" : "ABOVE the goal"}`;
  console.log(
    `  ${label}, cpu per POST ${now.name} ÷ ${before.name}: median ${fixed(ratio, 3)}× over ${options.rounds} ` +
      `paired rounds of ${options.seconds} s (${quartiles(ratios)})${goal}`,
  );
  const throughput = median(throughputRatios);
  const bar = options.throughputAtLeast;
  console.log(
    `  ${label}, req/s ${now.name} ÷ ${before.name}: median ${fixed(throughput, 3)}× over the same rounds ` +
      `(${quartiles(throughputRatios)})` +
      (bar === undefined ? "" : `; goal ≥ ${bar}× — ${throughput >= bar ? "meets the goal" : "BELOW the goal"}`),
  );
  const beforeUs = sums.beforeCpu / sums.beforeRequests;
  const nowUs = sums.nowCpu / sums.nowRequests;
  console.log(
    `  ${label}, over all rounds: ${before.name} ${fixed(beforeUs)} µs, ${now.name} ${fixed(nowUs)} µs ` +
      `per POST (${fixed(nowUs / beforeUs, 3)}×)`,
  );
  const [beforeSlope, nowSlope] = [marginalUs(measured.before), marginalUs(measured.now)];
  console.log(
    `  ${label}, marginal cost (CPU over requests, least squares over the rounds): ${before.name} ` +
      `${fixed(beforeSlope)} µs, ${now.name} ${fixed(nowSlope)} µs per POST (${fixed(nowSlope / beforeSlope, 3)}×)`,
  );
  return { medianRatio: ratio, served };
}
