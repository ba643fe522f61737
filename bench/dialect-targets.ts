/**
 * What the provider dialects cost, in the same run as everything else
 * (opt-in, `BENCH_DIALECTS=1`): beside `serve --quiet` as it is now, two
 * more `serve --quiet` targets —
 *   - the code from before the dialect renderer (commit
 *     {@link BEFORE_DIALECTS_COMMIT}, extracted by `bench/baseline-tree.ts`),
 *     which answers in our spec's shape with no profile at all: the default
 *     profile's cost is the ratio of today's CPU per POST to that one;
 *   - today's code speaking the enveloped example dialect
 *     (`--provider examples/providers/enveloped-string-money.yaml`: envelopes,
 *     string money, extra fields), so a dialect's own cost is visible.
 * CPU µs per request, not req/s, is what is compared: it is the server's own
 * work, whatever the neighbours on the machine did to the throughput.
 */
import { resolve } from "node:path";
import { BEFORE_DIALECTS_COMMIT, prepareBaselineTree } from "./baseline-tree.ts";
import { type ServeTarget, startServe } from "./serve-targets.ts";
import { median } from "./soak-verdict.ts";

export const ENVELOPED_PROFILE = "examples/providers/enveloped-string-money.yaml";

export interface DialectTargets {
  /** Undefined when the commit is not in this clone. */
  readonly before: ServeTarget | undefined;
  readonly enveloped: ServeTarget;
}

export async function startDialectTargets(root: string): Promise<DialectTargets> {
  const tree = prepareBaselineTree(root, BEFORE_DIALECTS_COMMIT);
  if (tree.kind === "missing") console.log(`serve --quiet before the dialects: skipped, ${tree.why}`);
  const before =
    tree.kind === "ready"
      ? await startServe(tree.dir, { log: "quiet", name: `before (${BEFORE_DIALECTS_COMMIT})` })
      : undefined;
  const flags = ["--provider", resolve(root, ENVELOPED_PROFILE)];
  const enveloped = await startServe(root, { log: "quiet", name: "enveloped dialect", flags });
  return { before, enveloped };
}

/** One server's CPU µs per request, round by round (undefined where /proc could not be read). */
export interface CpuSeries {
  readonly name: string;
  readonly cpuUs: readonly (number | undefined)[];
}

/**
 * Lines comparing each series' CPU per request with `reference`'s, round by
 * round: `name ÷ reference` above 1 means `name` costs more per request.
 */
export function cpuCostLines(
  label: string,
  reference: CpuSeries,
  others: readonly CpuSeries[],
  goalAtMost?: number,
): string[] {
  const lines: string[] = [];
  const present = (values: readonly (number | undefined)[]) => values.filter((v): v is number => v !== undefined);
  const referenceUs = present(reference.cpuUs);
  if (referenceUs.length === 0) return [`  ${label}: no CPU figures (no /proc on this system)`];
  lines.push(`  ${label}, cpu µs per request: ${reference.name} ${median(referenceUs).toFixed(0)}`);
  for (const other of others) {
    const ratios = other.cpuUs.flatMap((us, round) => {
      const base = reference.cpuUs[round];
      return us === undefined || base === undefined ? [] : [us / base];
    });
    if (ratios.length === 0) continue;
    const rounds = ratios.map((r) => r.toFixed(2)).join(", ");
    const ratio = median(ratios);
    const goal =
      goalAtMost === undefined
        ? ""
        : `; goal ≤ ${goalAtMost}× — ${ratio <= goalAtMost ? "meets the goal" : "ABOVE the goal"}`;
    lines.push(
      `    ${other.name} ${median(present(other.cpuUs)).toFixed(0)}; ${other.name} ÷ ${reference.name}: ` +
        `${ratio.toFixed(2)}× (rounds: ${rounds})${goal}`,
    );
  }
  return lines;
}
