/**
 * `npm run bench:cost`: does today's `serve --quiet` cost more CPU per POST
 * than the code before the dialect renderer (`bench/baseline-tree.ts`)? Both
 * run side by side, measured as `bench/paired-cost.ts` does.
 *
 * With `--profile DIR` both servers also run under `node --cpu-prof`, and
 * their profiles are left in DIR for `bench/profile-buckets.ts` (by
 * function) and `bench/profile-stages.ts` (by stage of the POST path), with
 * the requests served it prints. `--baseline COMMIT` compares with another
 * commit, `--log default` runs both with their default request log.
 *
 *   npm run bench:cost -- [--rounds 16] [--seconds 2] [--connections 32] [--profile DIR]
 *     [--sequential] [--baseline COMMIT] [--log quiet|default]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BEFORE_DIALECTS_COMMIT, prepareBaselineTree } from "./baseline-tree.ts";
import { pairedCost } from "./paired-cost.ts";
import { startServe } from "./serve-targets.ts";

const ROOT = resolve(import.meta.dirname, "..");

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "16" },
    seconds: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    profile: { type: "string" },
    sequential: { type: "boolean", default: false },
    baseline: { type: "string", default: BEFORE_DIALECTS_COMMIT },
    log: { type: "string", default: "quiet" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const LOG = values.log === "default" ? "default" : "quiet";

function nodeFlags(name: string): string[] {
  if (values.profile === undefined) return [];
  return ["--cpu-prof", "--cpu-prof-dir", resolve(values.profile), "--cpu-prof-name", `${name}.cpuprofile`];
}

async function main(): Promise<void> {
  const tree = prepareBaselineTree(ROOT, values.baseline);
  if (tree.kind === "missing") throw new Error(`no baseline: ${tree.why}`);
  const before = await startServe(tree.dir, { log: LOG, name: "before", nodeFlags: nodeFlags("before") });
  const now = await startServe(ROOT, { log: LOG, name: "now", nodeFlags: nodeFlags("now") });
  try {
    const options = { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, sequential: values.sequential };
    const label = `now ÷ ${values.baseline}`;
    const { served } = await pairedCost(label, before, now, { ...options, goalAtMost: 1.05 });
    console.log(`requests served, warm-up included: before ${served.before}, now ${served.now}`);
  } finally {
    await before.stop();
    await now.stop();
  }
}

await main();
