// The dashboard's plots and its links in Debian's Chromium: each plot is drawn
// and its data grows as orders are placed (counted from each chart's
// data-points, never from pixels), a reload keeps the tab and the order, and
// the public request counter stays still while only the dashboard is open,
// and times read in the reader's own zone.
// It writes docs/images/dashboard-plots.png, which docs/dashboard.md shows.
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardLink } from "../../src/dashboard/dashboard-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";
import { buildUi, startDashboardSimulator } from "../support/dashboard-page.ts";
import { admin, orderBody, placeOrder } from "../support/http.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const IMAGES = join(resolve(import.meta.dirname, "../.."), "docs/images");
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const PLOTS = ["plot-rates", "plot-pending", "plot-webhooks", "plot-balances"] as const;
const LIVE_MS = 4_000;

const skip = chromiumSkipReason();

async function pointsOf(page: Page): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const id of PLOTS) counts[id] = Number(await page.getByTestId(id).getAttribute("data-points"));
  return counts;
}

async function headlineNumber(page: Page, label: string): Promise<number> {
  return Number(await page.locator(".headline div", { hasText: label }).locator("dd").textContent());
}

describe.skipIf(skip !== undefined)(
  `the dashboard's plots and links${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let browser: Browser;
    let sim: Simulator;
    let receiver: WebhookHandler;
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      const uiDir = await buildUi();
      receiver = await startWebhookHandler(SECRET);
      sim = await startDashboardSimulator(uiDir, { url: receiver.url, secret: SECRET });
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(dashboardLink(sim.url, sim.adminToken));
      await page.getByRole("status").filter({ hasText: "Live" }).waitFor({ timeout: LIVE_MS });
    });

    afterAll(async () => {
      await browser?.close();
      await sim?.close();
      await receiver?.close();
    });

    it("draws each plot and grows its data as orders are placed and turn final", async () => {
      await page.getByRole("button", { name: "Plots", exact: true }).click();
      for (const id of PLOTS) await page.getByTestId(id).locator("canvas").first().waitFor({ timeout: LIVE_MS });
      const before = await pointsOf(page);
      expect(before["plot-rates"]).toBe(0);
      expect(before["plot-pending"]).toBe(0);
      expect(before["plot-webhooks"]).toBe(0);

      for (let i = 0; i < 3; i++) expect((await placeOrder(sim, orderBody({ amount: 100 + i }))).status).toBe(200);
      await sim.clock.advance(1_000);
      await expect
        .poll(() => pointsOf(page), { timeout: LIVE_MS })
        .toEqual({
          "plot-rates": expect.any(Number) as number,
          "plot-pending": 1,
          "plot-webhooks": 3,
          "plot-balances": expect.any(Number) as number,
        });
      const after = await pointsOf(page);
      expect(after["plot-rates"]).toBeGreaterThan(0);
      // Three debits since the first sample: more points on the balance line.
      expect(after["plot-balances"]).toBeGreaterThan(before["plot-balances"]!);
      await expect.poll(() => page.getByTestId("plot-pending").textContent()).toContain("3 orders");
      // Orders within one second must not stretch the rates' time axis over years: it spans a minute or more, ending now.
      const [xMin, xMax] = ((await page.getByTestId("plot-rates").getAttribute("data-x-range")) ?? "")
        .split(",")
        .map(Number);
      expect(xMax! - xMin!).toBeGreaterThanOrEqual(60);
      expect(xMax! - xMin!).toBeLessThanOrEqual(600);
      expect(Math.abs(xMax! - Date.now() / 1000)).toBeLessThan(120);
      await page.getByTestId("plots").screenshot({ path: join(IMAGES, "dashboard-plots.png"), animations: "disabled" });
      expect(pageErrors).toEqual([]);
    });

    it("shades the configured timing on the pending → final histogram, where the orders fell", async () => {
      await page.getByRole("button", { name: "Plots", exact: true }).click();
      const histogram = page.getByTestId("plot-pending");
      // The simulator's timing is a fixed 1 s: a band from 1 s to 1 s, in the chart's data.
      await expect.poll(() => histogram.getAttribute("data-band"), { timeout: LIVE_MS }).toBe("1,1");
      expect(await histogram.textContent()).toContain("configured 1000ms, shaded");
      const schedule = await admin(sim, "/schedule");
      expect(schedule.body.configuredTiming).toEqual({ text: "1000ms", lowMs: 1000, highMs: 1000 });
    });

    it("keeps the tab and the open order across a reload", async () => {
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      await page.locator("table button.link").first().click();
      const title = await page.locator("#order-title").textContent();
      expect(page.url()).toMatch(/[#&]tab=orders&order=/);
      await page.reload();
      await expect.poll(() => page.locator("#order-title").textContent(), { timeout: LIVE_MS }).toBe(title);
      await page.getByRole("button", { name: "Clock", exact: true }).click();
      await page.reload();
      await page.locator("#clock-title").waitFor({ timeout: LIVE_MS });
      expect(await page.getByRole("button", { name: "Clock", exact: true }).getAttribute("aria-current")).toBe("page");
      await page.goBack();
      await expect.poll(() => page.locator("#order-title").textContent(), { timeout: LIVE_MS }).toBe(title);
    });

    it("counts only the public API in Requests while the dashboard itself calls the admin API", async () => {
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      await page.locator(".headline").waitFor({ timeout: LIVE_MS });
      const publicBefore = await headlineNumber(page, "Requests (public API)");
      const adminBefore = await headlineNumber(page, "Admin requests");
      for (const tab of ["Plots", "Customers", "Clock", "Journal", "Orders", "Plots"]) {
        await page.getByRole("button", { name: tab, exact: true }).click();
        await page.locator("main h2").first().waitFor({ timeout: LIVE_MS });
      }
      // The headline reloads on live events; none came, so a reload reads the counters afresh.
      await page.reload();
      await expect
        .poll(() => headlineNumber(page, "Admin requests"), { timeout: LIVE_MS })
        .toBeGreaterThan(adminBefore);
      expect(await headlineNumber(page, "Requests (public API)")).toBe(publicBefore);
    });

    it("disables the force buttons a final order cannot take", async () => {
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      await page.locator("table button.link").first().click();
      await expect.poll(() => page.getByTestId("order-status").textContent(), { timeout: LIVE_MS }).toMatch(/^20/);
      const forced = page.getByRole("group", { name: "Force an outcome" });
      // A successful order can still be reversed, and nothing else.
      expect(await forced.getByRole("button", { name: "Force reversal" }).isEnabled()).toBe(true);
      for (const name of ["Force success", "Force failure", "Force timeout"])
        expect(await forced.getByRole("button", { name }).isDisabled()).toBe(true);
    });

    it("shows times in the reader's zone, named, with UTC on hover", async () => {
      const nairobi = await browser.newContext({ timezoneId: "Africa/Nairobi" });
      const local = await nairobi.newPage();
      await local.goto(dashboardLink(sim.url, sim.adminToken));
      await local.getByRole("button", { name: "Orders", exact: true }).click();
      const cell = local.locator("table tbody tr").first().locator("time");
      await cell.waitFor({ timeout: LIVE_MS });
      const shown = (await cell.textContent()) ?? "";
      const utc = (await cell.getAttribute("title")) ?? "";
      expect(shown).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} GMT\+3$/);
      expect(utc).toMatch(/ UTC$/);
      // Nairobi keeps no summer time: its wall clock is UTC + 3 h all year.
      const asUtc = (text: string) => Date.parse(`${text.slice(0, 23).replace(" ", "T")}Z`);
      expect(asUtc(shown) - asUtc(utc)).toBe(3 * 3_600_000);
      expect(await cell.getAttribute("datetime")).toBe(new Date(asUtc(utc)).toISOString());
      await nairobi.close();
    });

    it("offers a field for the token on a page opened without one", async () => {
      const bare = await browser.newPage();
      await bare.goto(`${sim.url}/_sim/ui`);
      await bare.getByRole("textbox", { name: /Admin token/ }).fill(sim.adminToken);
      await bare.getByRole("button", { name: "Open the dashboard" }).click();
      await bare.getByRole("status").filter({ hasText: "Live" }).waitFor({ timeout: LIVE_MS });
      await bare.close();
    });
  },
);
