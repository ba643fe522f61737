/**
 * The one HTML page every report is drawn in (`contract`, `compare`,
 * `handler-check`): inline style and script (the page opens from disk, with
 * no server and no network), a Content-Security-Policy that lets only the
 * page's own scripts run — a second line of defence should text from the
 * target ever slip past escaping — and the frame each report fills: a
 * verdict badge, a heading, the run's facts, the command's own sections and
 * a footer. A command brings only its sections.
 */
import { createHash } from "node:crypto";
import { Html, markup } from "./markup.ts";

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --panel: #f6f8fa;
  --pass: #1a7f37; --fail: #b3261e; --skip: #59636e; --warn: #8a4600; --link: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, footer { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem; }
header { border-bottom: 1px solid var(--line); }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.6rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.6rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.4rem 0 0.4rem; }
h4 { font-size: 0.95rem; margin: 0.8rem 0 0.3rem; }
h5 { font-size: 0.85rem; margin: 0.6rem 0 0.2rem; color: var(--muted); }
a { color: var(--link); }
code, pre { font: 13px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { margin: 0.3rem 0; padding: 0.6rem 0.8rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--line); }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { display: inline-block; min-width: 6.5rem; font-weight: 600; }
.verdict.passed { color: var(--pass); }
.verdict.failed { color: var(--fail); }
.verdict.skipped { color: var(--skip); }
.verdict.not_exercised { color: var(--warn); }
.badge { display: inline-block; padding: 0.1rem 0.6rem; border-radius: 1rem; color: #fff; font-weight: 600; }
.badge.passed { background: var(--pass); }
.badge.failed { background: var(--fail); }
.failure { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px; padding: 0.2rem 1rem 0.8rem; margin: 1rem 0; }
.message { font-weight: 600; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 0.4rem 0; background: var(--bg); }
details > summary { cursor: pointer; padding: 0.4rem 0.8rem; font-weight: 600; }
details[open] > summary { border-bottom: 1px solid var(--line); }
details > .body { padding: 0.2rem 0.8rem 0.6rem; }
.exchange { margin: 0.6rem 0 1rem; }
.status-line { font-weight: 600; }
.fault { color: var(--warn); }
.copyable { position: relative; }
.copyable pre { padding-right: 4.5rem; }
button { font: inherit; font-size: 0.85rem; padding: 0.15rem 0.6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); cursor: pointer; }
button:hover { background: var(--panel); }
button:focus-visible, summary:focus-visible, pre:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
.copyable button { position: absolute; top: 0.35rem; right: 0.4rem; }
.toolbar { display: flex; gap: 0.5rem; margin: 0.4rem 0; }
.diff figcaption { display: flex; gap: 1.5rem; font-size: 0.9rem; }
.diff figure, figure.diff { margin: 0.4rem 0; }
.diff-line { display: block; text-decoration: none; }
del.diff-line { background: #ffebe9; color: #82071e; }
ins.diff-line { background: #dafbe1; color: #116329; }
.legend-remove { color: #82071e; }
.legend-add { color: #116329; }
.diff-mark { display: inline-block; width: 1.2em; user-select: none; }
figure.chart { margin: 1rem 0; }
.chart-box { max-width: 760px; }
.share-bar { display: inline-block; height: 0.7em; background: #0a58ca; vertical-align: middle; }
.share-bar.target { background: #b3261e; }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
`;

// Buttons that need script (copy, expand all) are added by it, so without script the page shows none that do nothing.
const SCRIPT = `
(() => {
  const select = (code) => {
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  };
  for (const block of document.querySelectorAll(".copyable")) {
    const code = block.querySelector("code");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Copy";
    button.title = "Copy " + (block.dataset.what || "this command");
    button.addEventListener("click", () => {
      const copied = () => {
        button.textContent = "Copied";
        setTimeout(() => { button.textContent = "Copy"; }, 1500);
      };
      if (navigator.clipboard === undefined) return select(code);
      navigator.clipboard.writeText(code.textContent).then(copied, () => select(code));
    });
    block.append(button);
  }
  for (const section of document.querySelectorAll("[data-steps]")) {
    const bar = document.createElement("div");
    bar.className = "toolbar";
    for (const [label, open] of [["Expand all steps", true], ["Collapse all steps", false]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.addEventListener("click", () => {
        for (const details of section.querySelectorAll("details")) details.open = open;
      });
      bar.append(button);
    }
    section.prepend(bar);
  }
})();
`;

const hashOf = (script: string): string => `'sha256-${createHash("sha256").update(script).digest("base64")}'`;

/** What a page adds to the shell: charts bring their library's style and scripts. */
export interface PageExtras {
  readonly style?: string;
  readonly scripts?: readonly string[];
}

/** Only the page's own scripts may run, each named by its hash. */
function policyFor(scripts: readonly string[]): string {
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${scripts.map(hashOf).join(" ")}`;
}

function renderPage(title: string, body: Html, extras: PageExtras): string {
  const scripts = [...(extras.scripts ?? []), SCRIPT];
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policyFor(scripts)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${new Html(STYLE + (extras.style ?? ""))}</style>
</head>
<body>
${body}
${scripts.map((script) => markup`<script>${new Html(script)}</script>\n`)}
</body>
</html>
`.markup;
}

/** One line of the facts list under the heading: a label and its value. */
export type Fact = readonly [label: string, value: Html | string | number];

export interface ReportPage {
  /** The browser tab's title. */
  readonly title: string;
  /** Colours the badge: green for a pass, red for anything else. */
  readonly verdict: "passed" | "failed";
  /** The badge's words ("Passed", "2 divergence(s)", "No verdict" …). */
  readonly badge: string;
  readonly heading: string;
  readonly facts: readonly (Fact | undefined)[];
  /** The command's own sections, in order; an empty string leaves one out. */
  readonly sections: readonly (Html | string)[];
  readonly footer: string;
  /** Chart assets, when the page draws charts. */
  readonly extras?: PageExtras;
}

/**
 * @example
 * renderReportPage({ title: "Contract report: passed", verdict: "passed", badge: "Passed",
 *   heading: "Contract report", facts: [["Seed", 7]], sections: [], footer: "airtime-harness contract" });
 */
export function renderReportPage(page: ReportPage): string {
  const facts = page.facts.flatMap((fact) =>
    fact === undefined ? [] : [markup`<dt>${fact[0]}</dt><dd>${fact[1]}</dd>\n`],
  );
  const body = markup`<header>
<p><span class="badge ${page.verdict}">${page.badge}</span></p>
<h1>${page.heading}</h1>
<dl class="facts">
${facts}</dl>
</header>
<main>
${page.sections.map((section) => markup`${section}\n`)}</main>
<footer><p>${page.footer}</p></footer>`;
  return renderPage(page.title, body, page.extras ?? {});
}

/** A command or curl line with a Copy button (added by the page's script). */
export function copyable(text: string, what: string): Html {
  return markup`<div class="copyable" data-what="${what}"><pre tabindex="0"><code>${text}</code></pre></div>`;
}
