/**
 * One report shell under `contract`, `compare` and `handler-check`: their
 * HTML pages share one head, style, script and frame, their JSON reports one
 * envelope, and their files are written by one writer — shown on the
 * reports themselves, and in the source, where no command keeps a page, an
 * envelope or a file writer of its own.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { formatCompareHtml } from "../../src/compare/html-report.ts";
import { formatCompareJson } from "../../src/compare/json-report.ts";
import type { CompareReport } from "../../src/compare/run-compare.ts";
import type { HandlerCheckReport } from "../../src/handler-check/check-handler.ts";
import { formatHandlerCheckJson, formatHandlerCheckHtml } from "../../src/handler-check/report-formats.ts";
import { formatHtmlReport } from "../../src/harness/reporters/html-reporter.ts";
import { formatJsonReport } from "../../src/harness/reporters/json-reporter.ts";
import { ReportEnvelopeSchema, startRun } from "../../src/report/json-report.ts";
import { reportFilesError, writeReports } from "../../src/report/outputs.ts";
import { HOSTILE_REPORT } from "../harness/html-report-fixture.ts";

const SIDE = {
  steps: [],
  finals: { SUCCESS: 3 },
  finalClasses: { success: 3 },
  finalTimesMs: [10, 20, 30],
  finalTimeErrorsMs: [1, 1, 1],
  finalTimesByStatus: { SUCCESS: [10, 20, 30] },
  unsettled: 0,
} as const;

const COMPARE: CompareReport = {
  target: "https://user:pass@sandbox.example",
  provider: "standard",
  seed: 3,
  runs: 4,
  results: [
    {
      rule: "failure rate",
      operation: "send",
      agrees: false,
      severity: "high",
      observations: 3,
      test: "Fisher's exact test",
      pValue: 0.01,
      simulator: { count: 0, n: 3, rate: 0, interval: { low: 0, high: 0.8 } },
      target: { count: 3, n: 3, rate: 1, interval: { low: 0.2, high: 1 } },
    },
  ],
  scores: { overall: 0.5, send: 0.5, replay: undefined, lookup: undefined, balance: undefined, webhook: undefined },
  simulator: SIDE,
  targetSide: SIDE,
};

const HANDLER: HandlerCheckReport = {
  handlerUrl: "http://127.0.0.1:9/hooks",
  dialect: "standard",
  notApplicable: {},
  simulatorUrl: "http://127.0.0.1:8",
  seed: 5,
  runs: 0,
  durationMs: 120,
  error: "the state URL answered 500",
};

// A fixed clock: the envelope's times are the run's, not the formatting's.
const ticks = [new Date("2026-01-02T03:04:05.000Z"), new Date("2026-01-02T03:04:09.500Z")];
const times = () => startRun(() => ticks.shift() ?? new Date(0)).finish();

const pages = {
  contract: formatHtmlReport(HOSTILE_REPORT),
  compare: formatCompareHtml(COMPARE),
  "handler-check": formatHandlerCheckHtml(HANDLER, { replay: "airtime-harness handler-check --seed 5" }),
};

function between(page: string, open: string, close: string): string {
  const start = page.indexOf(open);
  return start < 0 ? "" : page.slice(start + open.length, page.indexOf(close, start));
}

describe("the three commands' HTML pages come from one shell", () => {
  test("one head: the same policy shape, style and page script; charts only add to them", () => {
    const style = between(pages["handler-check"], "<style>", "</style>");
    const script = [...pages["handler-check"].matchAll(/<script>([\s\S]*?)<\/script>/g)].at(-1)?.[1] ?? "";
    expect(style).toContain(".badge.failed");
    expect(script).toContain(".copyable");
    for (const page of Object.values(pages)) {
      expect(page.startsWith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">')).toBe(true);
      expect(page).toContain(
        '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:; script-src &#39;sha256-',
      );
      expect(between(page, "<style>", "</style>").startsWith(style)).toBe(true);
      expect([...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].at(-1)?.[1]).toBe(script);
    }
  });

  test("one frame: a verdict badge, a heading, the facts, the command's sections, a footer naming it", () => {
    const frame =
      /<header>\n<p><span class="badge (passed|failed)">[^<]+<\/span><\/p>\n<h1>[^<]+<\/h1>\n<dl class="facts">\n/;
    for (const [command, page] of Object.entries(pages)) {
      expect(page).toMatch(frame);
      expect(page).toContain(`<footer><p>airtime-harness ${command} · seed `);
    }
    expect(pages["handler-check"]).toContain('<span class="badge failed">No verdict</span>');
    expect(pages.compare).toContain("<dt>Target</dt><dd>https://sandbox.example</dd>");
  });
});

describe("the three commands' JSON reports share one envelope", () => {
  const documents = {
    contract: JSON.parse(formatJsonReport(HOSTILE_REPORT, times())) as Record<string, unknown>,
    compare: JSON.parse(formatCompareJson(COMPARE, times())) as Record<string, unknown>,
    "handler-check": JSON.parse(formatHandlerCheckJson(HANDLER, { replay: "" }, times())) as Record<string, unknown>,
  };

  test("each states the tool, its command, the verdict and the run's times, then its own body", () => {
    expect(documents.contract).toMatchObject({ command: "contract", verdict: "failed", version: 1 });
    expect(documents.compare).toMatchObject({ command: "compare", verdict: "failed", divergences: 1 });
    expect(documents["handler-check"]).toMatchObject({ command: "handler-check", verdict: "no_verdict", ok: false });
    for (const document of Object.values(documents)) {
      expect(ReportEnvelopeSchema.safeParse(document).success).toBe(true);
      expect(Object.keys(document).slice(0, 7)).toEqual(Object.keys(ReportEnvelopeSchema.shape));
      expect(document).toMatchObject({ tool: "airtime-harness", startedAt: expect.any(String) });
    }
    expect(documents.contract.startedAt).toBe("2026-01-02T03:04:05.000Z");
    expect(documents.contract.finishedAt).toBe("2026-01-02T03:04:09.500Z");
  });
});

describe("one writer for the files the flags name", () => {
  test("`-` sends a report to standard output and the console report to standard error", async () => {
    const heard: string[] = [];
    await writeReports(
      { json: "-", html: undefined },
      { console: () => "console text", json: () => "{}\n" },
      {
        log: (text) => heard.push(`log:${text}`),
        error: (text) => heard.push(`error:${text}`),
        stdout: (text) => heard.push(`stdout:${text}`),
      },
    );
    expect(heard).toEqual(["error:console text", "stdout:{}\n"]);
  });

  test("two reports on standard output are refused before a run", () => {
    expect(reportFilesError({ json: "-", html: "-" })).toMatch(/only one report can go to standard output/);
    expect(reportFilesError({ json: "-", html: "page.html" })).toBeUndefined();
  });
});

describe("no command keeps a shell of its own (source)", () => {
  const SHELL = "src/report/";

  async function sources(folder: string): Promise<{ file: string; text: string }[]> {
    const entries = await readdir(folder, { recursive: true, withFileTypes: true });
    const files = entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => join(e.parentPath, e.name));
    return Promise.all(files.map(async (file) => ({ file, text: await readFile(file, "utf8") })));
  }

  test("only the shell writes a page's head, an envelope or a report file", async () => {
    const outside = (await sources("src")).filter(({ file }) => !file.startsWith(SHELL));
    const offenders = outside.flatMap(({ file, text }) => [
      ...(/<!doctype html/i.test(text) ? [`${file}: a page head`] : []),
      ...(/class="copyable"/.test(text) ? [`${file}: a copy block`] : []),
      ...(/reporters\/html-(page|template)|report-charts/.test(text) ? [`${file}: the old shell`] : []),
    ]);
    expect(offenders).toEqual([]);
    for (const file of [
      "src/harness/reporters/json-reporter.ts",
      "src/compare/json-report.ts",
      "src/handler-check/report-formats.ts",
    ]) {
      const text = await readFile(file, "utf8");
      expect(text, file).toContain("renderJsonReport(");
      expect(text, file).not.toContain("JSON.stringify(");
    }
    for (const file of ["src/cli/contract.ts", "src/cli/compare.ts", "src/cli/handler-check.ts"]) {
      const text = await readFile(file, "utf8");
      expect(text, file).toContain("writeReports(");
      expect(text, file).not.toMatch(/writeFile\([^)]*\.(json|html|junit)\b/);
    }
  });
});
