/**
 * CPU per POST by stage, from a `node --cpu-prof` profile of a server under
 * a POST-only load (`bench/cost-ab.ts --profile`). Each busy sample goes to
 * one stage: the background stages (packing settled orders, finalising an
 * order when its step falls due; start-up and shutdown are left out) and two leaf steps (the token's
 * digest, the fingerprint) by any frame of its stack, the others by the
 * innermost frame that names one. Given the requests served,
 * the shares become µs per order: busy samples × the sampling interval ÷
 * requests.
 *
 *   npx tsx bench/profile-stages.ts before.cpuprofile now.cpuprofile --requests 41000,40000
 */
import { parseArgs } from "node:util";
import { costByBucket, parentsOf, type ProfileNode, readProfile } from "./cpu-profile.ts";

/**
 * Stages that own every sample under them, whatever the innermost frame:
 * background work, and leaf steps whose helpers (a hash, a store's
 * comparison) name no stage of their own.
 */
const BACKGROUND: readonly (readonly [string, RegExp])[] = [
  ["shutdown (left out)", /^closeOnce /],
  ["start-up (left out)", /^(makeSyncRequest|makeAsyncRequest|waitForWorker|compileSourceTextModule) /],
  ["packing settled orders (background)", /cold-queue\.ts$/],
  ["finalisation (the step when due)", /^runJob .*time-keeper\.ts$/],
  ["auth digest (SHA-256 of the token)", /^(matchToken|findCustomerByToken) /],
  ["fingerprint", /^(fingerprintOrder|fingerprintOfKnownFields) /],
];

/** The innermost frame that matches one of these names the stage, first rule first. */
const STAGES: readonly (readonly [string, RegExp])[] = [
  ["garbage collector", /^\(garbage collector\) /],
  ["socket writes (`writev`)", /^(writev|writevGeneric|writeGeneric|createWriteWrap|writeUtf8String) /],
  ["log (journal, request line, metrics)", /(request-log|journal|metrics)\.ts$|prom-client|pino|sonic-boom/],
  [
    "validation (zod)",
    /\/zod\/|validation\.ts$|order-request\.ts$|operators\.ts$|^(createSendAirtimeParser|toProblem) /,
  ],
  ["parse (body, `JSON.parse`)", /body\.ts$/],
  ["scenario effects", /\/scenarios\/|^(evaluateAll|mergeEffects|writeFailure|realDelay) /],
  [
    "response (present, render, `writeHead`)",
    /(presenters|render|body-layout)\.ts$|^(sendText|sendJson|writeHead|end) /,
  ],
  ["placement (domain, store, scheduling)", /\/src\/(domain|store|time)\//],
  ["routing, request state", /\/src\/(http|simulator)\//],
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { requests: { type: "string" } },
});

function frame(node: ProfileNode): string {
  return `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url}`;
}

function stagesOf(path: string, requests: number | undefined): Map<string, number> {
  const profile = readProfile(path);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = parentsOf(profile);
  const memo = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const stack: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node !== undefined) stack.push(frame(node));
    }
    const top = stack[0] ?? "";
    const background = BACKGROUND.find(([, match]) => stack.some((name) => match.test(name)));
    const innermost = stack.map((name) => STAGES.find(([, match]) => match.test(name))).find((s) => s !== undefined);
    const stage = top.startsWith("(idle)")
      ? "idle"
      : (background?.[0] ?? innermost?.[0] ?? "node:http, net, events (node core)");
    memo.set(id, stage);
    return stage;
  };
  const counted = (id: number) => {
    const stage = stageOf(id);
    return stage === "idle" || stage.endsWith("(left out)") ? undefined : stage;
  };
  return costByBucket(profile, counted, requests, 100);
}

const [beforeRequests, nowRequests] = (values.requests?.split(",") ?? []).map(Number);
const columns = positionals.map((path, index) => stagesOf(path, index === 0 ? beforeRequests : nowRequests));
const unit = values.requests === undefined ? "%" : "µs";
const stages = [...new Set(columns.flatMap((column) => [...column.keys()]))];
const first = columns[0] ?? new Map<string, number>();
stages.sort((a, b) => (first.get(b) ?? 0) - (first.get(a) ?? 0));
console.log(`| stage | ${positionals.map((_, i) => (i === 0 ? `before, ${unit}` : `after, ${unit}`)).join(" | ")} |`);
console.log(`|---|${positionals.map(() => "---:").join("|")}|`);
for (const stage of stages) {
  console.log(`| ${stage} | ${columns.map((column) => (column.get(stage) ?? 0).toFixed(1)).join(" | ")} |`);
}
const total = (column: Map<string, number>) => [...column.values()].reduce((a, b) => a + b, 0);
console.log(`| all busy samples | ${columns.map((column) => total(column).toFixed(1)).join(" | ")} |`);
