/**
 * `compare --html` in Debian's Chromium: the page opens from disk, draws
 * its timing chart with the uPlot it carries (no network, nothing blocked by
 * its own Content-Security-Policy, no page error), and shows the outcome
 * mix. It writes docs/images/compare-distributions.png, which the compare
 * guide shows.
 */
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";
import { useTempFolder } from "../support/temp-folder.ts";

const IMAGES = join(resolve(import.meta.dirname, "../.."), "docs/images");
const skip = chromiumSkipReason();
const targets = new CompareTargets();
afterAll(() => targets.close());
const folder = useTempFolder("compare-html-browser-");

/** A comparison whose target is slower and fails more than the simulator it is compared with. */
async function writeReport(): Promise<string> {
  const target = await targets.simulator({ seed: 41, timing: "lognormal:400ms,0.4", failureRate: 0.3 });
  const simConfig = join(folder(), "reference.json");
  await writeFile(simConfig, JSON.stringify(REFERENCE_SETTINGS));
  const file = join(folder(), "compare.html");
  const args = ["compare", "--target", target, "--token", TARGET_TOKEN, "--seed", "5", "--runs", "12"];
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    // Divergent on purpose; without --fail-under a divergence does not fail the command.
    expect(await main([...args, "--settle", "10s", "--sim-config", simConfig, "--html", file])).toBe(0);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
  return file;
}

describe.skipIf(skip !== undefined)(
  `compare --html in Chromium${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    it("draws both timing distributions and the outcome mix, offline, with no error", async () => {
      const file = await writeReport();
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        const problems: string[] = [];
        page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
        page.on("pageerror", (e) => problems.push(e.message));
        page.on(
          "request",
          (request) => !request.url().startsWith("file:") && problems.push(`fetched ${request.url()}`),
        );
        await page.goto(pathToFileURL(file).href);
        const figure = page.locator("#timing-distribution");
        await expect.poll(() => figure.getAttribute("data-drawn")).toBe(await figure.getAttribute("data-points"));
        expect(Number(await figure.getAttribute("data-points"))).toBeGreaterThan(2);
        expect(await figure.locator("canvas").count()).toBe(1);
        // uPlot's legend names both sides.
        const legend = await figure.locator(".u-legend").textContent();
        expect(legend).toContain("target");
        expect(legend).toContain("simulator");
        const mix = page.getByTestId("outcome-mix");
        expect(await mix.locator("tbody tr").count()).toBeGreaterThanOrEqual(3);
        expect(await mix.locator(".share-bar.target").count()).toBeGreaterThan(0);
        expect(problems).toEqual([]);
        await page
          .locator("#distributions")
          .locator("xpath=..")
          .screenshot({
            path: join(IMAGES, "compare-distributions.png"),
            animations: "disabled",
          });
      } finally {
        await browser.close();
      }
    });
  },
);
