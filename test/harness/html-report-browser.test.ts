/**
 * The HTML contract report in Debian's Chromium: `contract --html` against a
 * deliberately broken target writes a page that, opened from disk, shows the
 * failed check, its steps and their curl lines, runs only its own script
 * (under its Content-Security-Policy), logs no console error and passes an
 * axe-core scan; text the target sent stays text. Writes the screenshot the
 * docs show (docs/images/contract-report.png).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { contract } from "../../src/cli/contract.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { formatHtmlReport } from "../../src/harness/reporters/html-reporter.ts";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";
import { type BrokenTarget, startBrokenTarget } from "./broken-targets.ts";
import { HOSTILE, HOSTILE_REPORT } from "./html-report-fixture.ts";

const SCREENSHOT = resolve(import.meta.dirname, "../../docs/images/contract-report.png");
const skipReason = chromiumSkipReason();
const skip = skipReason !== undefined;

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly unknown[];
}

describe.skipIf(skip)(`the HTML contract report in Chromium${skip ? ` (skipped: ${skipReason})` : ""}`, () => {
  let browser: Browser;
  let dir: string;
  const targets: BrokenTarget[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), "html-report-"));
  });

  afterAll(async () => {
    await browser?.close();
    for (const target of targets) await target.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** A page that records console errors and uncaught exceptions. */
  async function openPage(
    file: string,
    options: { bypassCSP?: boolean } = {},
  ): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(file).href);
    return { page, errors };
  }

  test("a run against a broken target opens from disk and shows the failed check, its steps, curl lines and diff", async () => {
    const target = await startBrokenTarget("webhook_status_differs");
    targets.push(target);
    const html = join(dir, "report.html");
    const json = join(dir, "report.json");
    const { webhookListen, webhookSecret, webhookUrl } = target.options;
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const code = await contract([
      "--webhook-listen",
      webhookListen as string,
      "--webhook-secret",
      webhookSecret as string,
      "--webhook-url",
      webhookUrl as string,
      "--property",
      "model",
      "--runs",
      "40",
      "--seed",
      "99",
      "--max-failures",
      "1",
      "--quiet",
      "--html",
      html,
      "--json",
      json,
    ]);
    log.mockRestore();
    expect(code).toBe(1);
    const report = JSON.parse(await readFile(json, "utf8")) as ContractReport;
    const verdict = report.checks.find((check) => check.name === "webhook_matches_lookup");
    if (verdict?.status !== "failed")
      throw new Error(`expected webhook_matches_lookup to fail, got ${verdict?.status}`);
    const { steps } = verdict.failure;

    const { page, errors } = await openPage(html);
    const failure = page.locator("#failure-webhook_matches_lookup");
    await expect
      .poll(() => page.getByRole("heading", { name: "webhook_matches_lookup failed" }).isVisible())
      .toBe(true);
    expect(await page.getByRole("row", { name: /webhook_matches_lookup FAILED/ }).isVisible()).toBe(true);

    const summaries = await failure.locator("[data-steps] > details > summary").allTextContents();
    expect(summaries).toEqual(steps.map((step, index) => `${index + 1}. ${step.label}`));
    const commands = await failure.locator(".copyable code").allTextContents();
    const curls = steps.flatMap((step) => step.curl);
    expect(curls.length).toBeGreaterThan(0);
    expect(commands).toEqual([...curls, verdict.failure.replay]);
    expect(await failure.locator(".copyable code").first().isVisible()).toBe(true);
    expect(await failure.locator("del.diff-line").count()).toBeGreaterThan(0);
    expect(await failure.locator("ins.diff-line").filter({ hasText: '"status": 2' }).count()).toBe(1);

    // The page's own script ran under its CSP: every command got its copy button.
    expect(await failure.getByRole("button", { name: "Copy" }).count()).toBe(commands.length);
    await failure.getByRole("button", { name: "Collapse all steps" }).click();
    expect(await failure.locator("[data-steps] > details[open]").count()).toBe(0);
    await failure.getByRole("button", { name: "Expand all steps" }).click();
    expect(await failure.locator("[data-steps] > details[open]").count()).toBe(steps.length);

    await page.evaluate(axe.source);
    const scan = await page.evaluate(async () => {
      const { axe: scanner } = globalThis as unknown as {
        axe: { run(): Promise<{ violations: AxeViolation[]; passes: unknown[] }> };
      };
      const { violations, passes } = await scanner.run();
      return {
        passes: passes.length,
        violations: violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.length })),
      };
    });
    // The scan ran its rules (some passed), and none found anything serious.
    expect(scan.passes).toBeGreaterThan(10);
    expect(scan.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
    expect(errors).toEqual([]);

    // The timeline draws a bar per request of the shrunk run, from sent to answered.
    const timeline = failure.locator("figure[data-chart]");
    await expect.poll(() => timeline.getAttribute("data-drawn")).toBe(await timeline.getAttribute("data-points"));
    const bars = JSON.parse((await timeline.locator("script").textContent()) ?? "{}") as { series: unknown[] };
    expect(bars.series).toHaveLength(Math.min(60, steps.flatMap((step) => step.exchanges).length));
    expect(await timeline.locator("canvas").count()).toBe(1);
    await timeline.screenshot({ path: resolve(SCREENSHOT, "../contract-timeline.png") });

    // The docs show the failure with its first step opened down to the request and response.
    await mkdir(resolve(SCREENSHOT, ".."), { recursive: true });
    await failure.getByRole("button", { name: "Collapse all steps" }).click();
    const first = failure.locator("[data-steps] > details").first();
    await first.locator("summary").first().click();
    await first.locator("details > summary").first().click();
    await failure.screenshot({ path: SCREENSHOT });
    await page.context().close();
  });

  test("markup the target sent stays text: with the CSP off, none of it runs or renders", async () => {
    const file = join(dir, "hostile.html");
    await writeFile(file, formatHtmlReport(HOSTILE_REPORT));
    const { page, errors } = await openPage(file, { bypassCSP: true });
    let dialogs = 0;
    page.on("dialog", (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await page.locator("img").count()).toBe(0);
    // uPlot, its chart drawer, the report's own buttons, and the timeline's data block (which never runs).
    expect(await page.locator("script").count()).toBe(4);
    expect(await page.locator("script[type='application/json']").count()).toBe(1);
    await expect.poll(() => page.locator("figure[data-chart]").getAttribute("data-drawn")).toBe("4");
    expect(await page.getByText(HOSTILE).first().isVisible()).toBe(true);
    expect(dialogs).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
