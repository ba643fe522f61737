/**
 * Self time by function from `node --cpu-prof` profiles, side by side: which
 * functions a change made dearer. Each profile's samples are put in the
 * bucket of their own (innermost) frame, `name file:line`; shares are of all
 * samples but idle, so two runs of different length compare. Samples under
 * a frame named by `--skip` (e.g. `closeOnce`, the shutdown) are left out.
 * Given the requests each server served (`bench/cost-ab.ts` prints them),
 * the columns are µs per request instead: busy samples × the sampling
 * interval ÷ requests.
 *
 *   npx tsx bench/profile-buckets.ts before.cpuprofile now.cpuprofile [--top 40]
 *     [--skip closeOnce] [--requests 41000,40000]
 */
import { parseArgs } from "node:util";
import { costByBucket, parentsOf, type Profile, type ProfileNode, readProfile } from "./cpu-profile.ts";

function frameName(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  const file = url.replace(/^.*\/(src|bench|node_modules)\//, "$1/");
  return `${functionName || "(anonymous)"} ${file}`;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "40" },
    skip: { type: "string", multiple: true, default: [] },
    requests: { type: "string" },
  },
});

/** Whether a sample's stack passes through a frame named in `--skip`. */
function skipped(profile: Profile): (id: number) => boolean {
  const parent = parentsOf(profile);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const memo = new Map<number, boolean>();
  const under = (id: number): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const result =
      node !== undefined && (values.skip.includes(node.callFrame.functionName) || (up !== undefined && under(up)));
    memo.set(id, result);
    return result;
  };
  return under;
}

/** Per function: its share of the busy samples, or µs per request when `requests` is given. */
function selfCost(path: string, requests: number | undefined): Map<string, number> {
  const profile = readProfile(path);
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node)]));
  const skip = skipped(profile);
  return costByBucket(
    profile,
    (id) => {
      const name = names.get(id) ?? "?";
      return name.startsWith("(idle)") || skip(id) ? undefined : name;
    },
    requests,
  );
}

const [beforePath, nowPath] = positionals;
if (beforePath === undefined) throw new Error("usage: profile-buckets.ts BEFORE.cpuprofile [NOW.cpuprofile]");
const [beforeRequests, nowRequests] = (values.requests?.split(",") ?? []).map(Number);
const before = selfCost(beforePath, beforeRequests);
const now = nowPath === undefined ? new Map<string, number>() : selfCost(nowPath, nowRequests);
const names = new Set([...before.keys(), ...now.keys()]);
const rows = [...names].map((name) => ({ name, before: before.get(name) ?? 0, now: now.get(name) ?? 0 }));
// Largest growth first when comparing; largest cost when reading one profile.
rows.sort((a, b) => (nowPath === undefined ? b.before - a.before : b.now - b.before - (a.now - a.before)));
const cell = (cost: number) =>
  values.requests === undefined ? `${(cost * 100).toFixed(2).padStart(6)} %` : `${cost.toFixed(2).padStart(7)} µs`;
const sum = (costs: Map<string, number>) => [...costs.values()].reduce((a, b) => a + b, 0);
console.log(`${cell(sum(before))}  ${cell(sum(now))}  ${cell(sum(now) - sum(before))}  (all busy samples)`);
for (const row of rows.slice(0, Number(values.top))) {
  console.log(`${cell(row.before)}  ${cell(row.now)}  ${cell(row.now - row.before)}  ${row.name}`);
}
