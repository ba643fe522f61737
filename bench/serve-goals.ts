/**
 * The bars `serve` itself is held to against the peers a team would pick
 * for a load test, on `POST /v1/airtime`, with its default request log (as
 * users start it): at least 1.5× WireMock warmed and 10× Mockoon in
 * throughput, p99 at most half of WireMock's, and at least 0.3× bare
 * node:http. Each ratio is taken round by round (the same round's
 * measurements) and the median over the rounds is compared with the bar.
 */
import { median } from "./soak-verdict.ts";

/** One target's POST measurements, one per round. */
export interface RoundSeries {
  readonly name: string;
  readonly rounds: readonly { readonly rps: number; readonly p99Ms: number }[];
}

interface Goal {
  readonly peer: string;
  readonly of: "rps" | "p99Ms";
  readonly atLeast?: number;
  readonly atMost?: number;
}

const GOALS: readonly Goal[] = [
  { peer: "wiremock", of: "rps", atLeast: 1.5 },
  { peer: "mockoon", of: "rps", atLeast: 10 },
  { peer: "bare node:http", of: "rps", atLeast: 0.3 },
  { peer: "wiremock", of: "p99Ms", atMost: 0.5 },
];

export function serveGoalLines(serve: RoundSeries, others: readonly RoundSeries[]): string[] {
  const lines = [`POST /v1/airtime, ${serve.name} against the peers (median of the rounds' ratios)`];
  for (const goal of GOALS) {
    const peer = others.find((other) => other.name === goal.peer);
    if (peer === undefined) {
      lines.push(`  vs ${goal.peer}: not measured (skipped)`);
      continue;
    }
    const ratios = serve.rounds.flatMap((mine, round) => {
      const theirs = peer.rounds[round];
      return theirs === undefined || theirs[goal.of] === 0 ? [] : [mine[goal.of] / theirs[goal.of]];
    });
    const ratio = median(ratios);
    const met = goal.atLeast === undefined ? ratio <= (goal.atMost as number) : ratio >= goal.atLeast;
    const bar = goal.atLeast === undefined ? `≤ ${goal.atMost}×` : `≥ ${goal.atLeast}×`;
    const what = goal.of === "rps" ? "req/s" : "p99";
    lines.push(
      `  ${what} ÷ ${peer.name}: ${ratio.toFixed(2)}× (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}); ` +
        `goal ${bar} — ${met ? "meets the goal" : "MISSES the goal"}`,
    );
  }
  return lines;
}
