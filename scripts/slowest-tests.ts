/**
 * The slowest test files of one run, from vitest's JSON report (`.ci/run`
 * writes `reports/vitest.json`): each file's `endTime - startTime`, with its
 * test count, and the run's totals. Prints the Markdown table
 * CONTRIBUTING.md keeps.
 *
 *   npx tsx scripts/slowest-tests.ts [reports/vitest.json] [--top 30]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";

interface FileResult {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly assertionResults: readonly unknown[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" } },
});
const path = positionals[0] ?? "reports/vitest.json";
const report = JSON.parse(readFileSync(path, "utf8")) as { testResults: FileResult[]; numTotalTests: number };
const files = report.testResults.map((file) => ({
  file: relative(process.cwd(), file.name),
  seconds: (file.endTime - file.startTime) / 1000,
  tests: file.assertionResults.length,
}));
const fileTime = files.reduce((sum, file) => sum + file.seconds, 0);
const span =
  (Math.max(...report.testResults.map((f) => f.endTime)) - Math.min(...report.testResults.map((f) => f.startTime))) /
  1000;

const count = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });
console.log(
  `${files.length} files, ${count.format(report.numTotalTests)} tests, ${count.format(fileTime)} s of file time, ` +
    `${count.format(span)} s from the first file's start to the last one's end.\n`,
);
console.log("| # | seconds | file | tests |\n|---:|---:|---|---:|");
files
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, Number(values.top))
  .forEach((file, index) => {
    console.log(`| ${index + 1} | ${file.seconds.toFixed(1)} | \`${file.file}\` | ${file.tests} |`);
  });
