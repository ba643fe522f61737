// The system Chromium starts headless and runs a page's script, so a failing
// dashboard test points at the dashboard, not at the browser setup.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`Chromium${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("renders a page and runs its script", async () => {
    const page = await browser.newPage();
    await page.setContent("<p id=out></p><script>document.getElementById('out').textContent = String(6 * 7)</script>");
    expect(await page.textContent("#out")).toBe("42");
    await page.close();
  });
});
