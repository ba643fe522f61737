/**
 * `compare --html FILE`: a real run renders a self-contained page with a
 * row per rule and the scores; a planted divergence shows in the table and
 * with its sequence; text the target chose (an error code) reaches the page
 * only escaped; both sides' timings and outcome mixes are drawn from the
 * figures the rules judged. The page is read as text here;
 * `html-report-browser.test.ts` opens it in Chromium.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { useTempFolder } from "../support/temp-folder.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());
const folder = useTempFolder("compare-html-");

const HOSTILE_CODE = `<script>alert("x")</script>`;

/** A target that answers invalid input with 422 and a hostile error code, and is otherwise `upstream`. */
function hostileTarget(upstream: string): Promise<string> {
  return targets.rewritingProxy(upstream, ({ method, status, body }) =>
    method === "POST" && status === 400
      ? { status: 422, body: JSON.stringify({ ...(JSON.parse(body) as object), code: HOSTILE_CODE }) }
      : { status, body },
  );
}

async function comparePage(target: string, name: string): Promise<string> {
  const simConfig = join(folder(), "reference.json");
  await writeFile(simConfig, JSON.stringify(REFERENCE_SETTINGS));
  const file = join(folder(), `${name}.html`);
  const args = ["--target", target, "--token", TARGET_TOKEN, "--seed", "7", "--runs", "8", "--settle", "10s"];
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    expect(await main(["compare", ...args, "--sim-config", simConfig, "--html", file])).toBe(0);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
  return readFile(file, "utf8");
}

interface ChartData {
  x: number[];
  series: { label: string; y: number[] }[];
}

/** The timing chart's data block. */
function chartData(page: string): ChartData {
  const block =
    /<figure class="chart" id="timing-distribution"[\s\S]*?<script type="application\/json">([\s\S]*?)<\/script>/.exec(
      page,
    );
  return JSON.parse(block?.[1] ?? "null") as ChartData;
}

/** The rules table's rows, each as its cells' text. */
function ruleRows(page: string): string[][] {
  const table = /<h2 id="rules">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? "";
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? "").matchAll(/<td>([\s\S]*?)<\/td>/g)].map((cell) => (cell[1] ?? "").replace(/<[^>]+>/g, "")),
  );
}

test("a real run renders a self-contained page: every rule agrees, scores of 100 %", async () => {
  const page = await comparePage(await targets.simulator({ seed: 31 }), "self");
  expect(page.startsWith("<!doctype html>")).toBe(true);
  // No external assets: nothing is fetched from anywhere when the page opens.
  expect(page).not.toMatch(/<(?:script|img|link|iframe)[^>]+(?:src|href)="(?:https?:)?\/\//);
  expect(page).toContain("Content-Security-Policy");
  const rows = ruleRows(page);
  expect(rows.length).toBeGreaterThanOrEqual(12);
  for (const row of rows) expect(row[5], row.join(" | ")).toBe("agrees");
  const timing = rows.find((row) => row[0] === "pending → final time");
  expect(timing?.[1]).toBe("send");
  expect(timing?.[3]).toMatch(/^n=\d+, p50 \d+ ms/);
  expect(page).toContain("Overall: <strong>100.0 %</strong>");
  expect(page).not.toContain('id="divergences"');
  // Both sides' timings as one chart's data, and the outcome mix side by side.
  const chart = chartData(page);
  const n = Number(/n=(\d+),/.exec(timing?.[3] ?? "")?.[1]);
  expect(chart.series.map((s) => s.label)).toEqual(["target", "simulator"]);
  for (const s of chart.series) expect(s.y).toHaveLength(chart.x.length);
  expect(chart.series[0]?.y.at(-1)).toBe(1);
  expect(new Set(chart.series[0]?.y).size).toBeLessThanOrEqual(n + 1);
  expect(page).toMatch(/<table data-testid="outcome-mix">[\s\S]*<td>Success<\/td><td class="num">/);
});

test("the page draws its charts with only its own scripts", async () => {
  const page = await comparePage(await targets.simulator({ seed: 33 }), "scripts");
  const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? "");
  const policy = /script-src ([^"]+)"/.exec(page)?.[1]?.replaceAll("&#39;", "'").split(" ") ?? [];
  // uPlot, the chart drawer and the report's own buttons, each allowed by its hash and nothing else.
  expect(scripts).toHaveLength(3);
  expect(policy).toEqual(scripts.map((script) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`));
});

test("a planted divergence shows in the table and with its sequence; the target's text is escaped", async () => {
  const page = await comparePage(await hostileTarget(await targets.simulator({ seed: 32 })), "planted");
  const divergent = ruleRows(page).filter((row) => row[5] === "diverges");
  expect(divergent.map((row) => row[0])).toEqual(["invalid input: HTTP status and error code"]);
  const [row] = divergent;
  expect(row?.[2]).toBe("high");
  expect(row?.[3]).toContain("refused 422 &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  expect(row?.[4]).toMatch(/refused 400 \w+/);
  expect(page).toContain('id="divergences"');
  expect(page).toMatch(/<summary>\d+\. invalid-amount: target refused 422 &lt;script&gt;/);
  expect(page).toMatch(/<pre tabindex="0"><code>curl -sS -X POST &#39;http:\/\/127\.0\.0\.1:\d+\/v1\/airtime&#39;/);
  // The only scripts on the page are the report's own: uPlot, its drawer and the buttons.
  expect(page).not.toContain(HOSTILE_CODE);
  expect(page.match(/<script>/g)).toHaveLength(3);
});
