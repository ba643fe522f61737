/**
 * How the code is built, measured on this tree and, with `--before COMMIT`,
 * on that commit's tree (extracted as `bench/baseline-tree.ts` does): files
 * and lines of `src/`, the small files, the imports that climb from an inner
 * layer to an outer one, the files one `POST /v1/airtime` runs through, the
 * files of `src/webhooks/` an order's final status runs through to its
 * delivered webhook (both by `scripts/structure-probe.ts`), and the pairs
 * `duplicates src` lists. Prints a Markdown table.
 *
 *   npx tsx scripts/structure-report.ts [--before COMMIT]
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { prepareBaselineTree } from "../bench/baseline-tree.ts";

const ROOT = resolve(import.meta.dirname, "..");
const SMALL_FILE = 30;

/** The layers, innermost first, as `eslint.config.js` enforces them: a file may import its own and earlier ones. */
const LAYER_ORDER = (JSON.parse(readFileSync(join(ROOT, "scripts/layers.json"), "utf8")) as { order: string[][] })
  .order;

function layerOf(pathInSrc: string): number | undefined {
  const folder = pathInSrc.split("/")[0] ?? "";
  const index = LAYER_ORDER.findIndex((layer) => layer.includes(folder));
  return index === -1 ? undefined : index;
}

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

const IMPORT = /^\s*(?:import|export)\b[^"']*?from\s+["'](\.[^"']+)["']/gm;

/** Every relative import from a file of one layer into a file of a later one, as `from → to`. */
function upwardImports(src: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const from = relative(src, file);
    const fromLayer = layerOf(from);
    if (fromLayer === undefined) continue;
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const to = relative(src, resolve(dirname(file), match[1] ?? ""));
      const toLayer = layerOf(to);
      if (toLayer !== undefined && toLayer > fromLayer) found.push(`${from} → ${to}`);
    }
  }
  return found;
}

interface Measures {
  readonly files: number;
  readonly lines: number;
  readonly small: number;
  readonly upward: readonly string[];
  readonly postFiles: readonly string[];
  readonly deliveryFiles: readonly string[];
  readonly duplicatePairs: number;
}

function measure(tree: string): Measures {
  const src = join(tree, "src");
  const files = listSourceFiles(src).sort();
  const lengths = files.map((file) => lineCount(readFileSync(file, "utf8")));
  const probe = execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/structure-probe.ts"), tree], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  const { postFiles, deliveryFiles } = JSON.parse(probe) as { postFiles: string[]; deliveryFiles: string[] };
  // Bounded at the tree's parent: an extracted tree under the git-ignored `.tmp/` is read as plain files.
  const duplicates = execFileSync("duplicates", ["--repo", src, "--seconds", "120"], {
    encoding: "utf8",
    env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(tree) },
  });
  const pairs = /^(\d+) pairs/.exec(duplicates);
  return {
    files: files.length,
    lines: lengths.reduce((sum, lines) => sum + lines, 0),
    small: lengths.filter((lines) => lines < SMALL_FILE).length,
    upward: upwardImports(src, files),
    postFiles,
    deliveryFiles,
    duplicatePairs: pairs === null ? 0 : Number(pairs[1]),
  };
}

const ROWS: readonly [string, (m: Measures) => number][] = [
  ["src files", (m) => m.files],
  ["src lines", (m) => m.lines],
  [`files under ${SMALL_FILE} lines`, (m) => m.small],
  ["imports from an inner layer up to an outer one", (m) => m.upward.length],
  ["files of `src/webhooks/` from an order's final status to its delivered webhook", (m) => m.deliveryFiles.length],
  ["files a `POST /v1/airtime` runs through", (m) => m.postFiles.length],
  ["`duplicates src` pairs", (m) => m.duplicatePairs],
];

const { values } = parseArgs({ options: { before: { type: "string" }, list: { type: "boolean", default: false } } });
const columns: [string, Measures][] = [];
if (values.before !== undefined) {
  const tree = prepareBaselineTree(ROOT, values.before);
  if (tree.kind === "missing") throw new Error(`no tree before: ${tree.why}`);
  columns.push([`before (${values.before})`, measure(tree.dir)]);
}
columns.push(["now", measure(ROOT)]);

console.log(`| measure | ${columns.map(([name]) => name).join(" | ")} |`);
console.log(`| --- | ${columns.map(() => "---:").join(" | ")} |`);
for (const [name, value] of ROWS) console.log(`| ${name} | ${columns.map(([, m]) => value(m)).join(" | ")} |`);
if (values.list) {
  for (const [name, m] of columns) {
    console.log(`\n${name}, upward imports:\n${m.upward.map((line) => `  ${line}`).join("\n")}`);
    console.log(`${name}, final status → delivered webhook:\n  ${m.deliveryFiles.join("\n  ")}`);
    console.log(`${name}, POST /v1/airtime:\n  ${m.postFiles.join("\n  ")}`);
  }
}
