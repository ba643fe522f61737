/**
 * `npm run bench:split`: what a second thread would give `serve` on this
 * machine, before anyone builds it. `serve` keeps its state on one event
 * loop; the shape that would use a second core with the memory store runs
 * HTTP and the stateless work on a worker thread and the state on the main
 * one. This bench measures that shape on stand-ins
 * (`bench/thread-split-server.ts`): the same node:http, the same bodies from
 * wrk, and busy work of `serve`'s size in place of `serve`'s own.
 *
 * The sizes come from the stage table in docs/performance.md: beyond
 * node's own HTTP (parser and socket writes, about 39 % of a POST), the
 * stateless part (routing, log, validation, parse, response, digests) is
 * about 29 % and the state (placement, packing, finalisation, its garbage)
 * about 32 %: some 60 and 65 µs of a 200 µs POST. `SPLIT_STATELESS_US` and
 * `SPLIT_STATE_US` change them, `SPLIT_ROUNDS` the rounds (3).
 *
 * Each round starts each shape afresh, warms it for 2 s, and measures 5 s
 * of `POST /v1/airtime` from `wrk -t1 -c32` in another process, the shapes
 * alternating as in `npm run bench`.
 */
import { hasWrk, loadWithWrk } from "./load.ts";
import type { LoadResult } from "./requests.ts";
import { median } from "./soak-verdict.ts";
import { startSplitServer } from "./thread-split-launch.ts";

const SHAPES = ["bare", "one", "split"] as const;
type Shape = (typeof SHAPES)[number];
const LABELS: Readonly<Record<Shape, string>> = {
  bare: "bare node:http, no work",
  one: "one thread (serve today)",
  split: "HTTP on a worker, state on main",
};

const whole = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number, got ${value}`);
  return value;
};

async function measure(shape: Shape, round: number, statelessUs: number, stateUs: number): Promise<LoadResult> {
  const server = await startSplitServer({ shape, statelessUs, stateUs });
  try {
    const load = { url: server.url, endpoint: "post" as const, connections: 32 };
    await loadWithWrk({ ...load, durationS: 2, prefix: `warm-${shape}-${round}-` });
    return await loadWithWrk({ ...load, durationS: 5, prefix: `split-${shape}-${round}-` });
  } finally {
    await server.stop();
  }
}

const rate = (result: LoadResult): string =>
  `${Math.round(result.rps).toLocaleString("en")} @ ${result.p99Ms.toFixed(1)} ms`;

function ratioLine(label: string, over: readonly LoadResult[], under: readonly LoadResult[]): string {
  const ratios = over.map((result, i) => result.rps / (under[i]?.rps ?? Number.NaN));
  return `${label}: ${median(ratios).toFixed(2)}× (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")})`;
}

async function main(): Promise<void> {
  if (!(await hasWrk())) throw new Error("bench:split needs wrk on PATH (Debian's wrk package)");
  const rounds = whole("SPLIT_ROUNDS", 3);
  const statelessUs = whole("SPLIT_STATELESS_US", 60);
  const stateUs = whole("SPLIT_STATE_US", 65);
  console.log(`stand-in work per POST: ${statelessUs} µs stateless, ${stateUs} µs of state; ${rounds} rounds`);
  const results: Record<Shape, LoadResult[]> = { bare: [], one: [], split: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const shape of SHAPES) results[shape].push(await measure(shape, round, statelessUs, stateUs));
  }
  console.log(`\nPOST req/s @ p99, wrk -t1 -c32, 5 s per round`);
  for (const shape of SHAPES) console.log(`${LABELS[shape].padEnd(32)} ${results[shape].map(rate).join("   ")}`);
  console.log("");
  console.log(ratioLine("split ÷ one thread", results.split, results.one));
  console.log(ratioLine("split ÷ bare node:http", results.split, results.bare));
  console.log(ratioLine("one thread ÷ bare node:http", results.one, results.bare));
}

await main();
