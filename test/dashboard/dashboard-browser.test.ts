// The dashboard in Debian's Chromium, end to end: opened with the link serve
// prints, it follows the simulator live and its buttons drive it. It also
// writes the screenshots docs/dashboard.md shows, so they stay true.
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardLink } from "../../src/dashboard/dashboard-plugin.ts";
import { createScenariosPlugin } from "../../src/scenarios/scenarios-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";
import { buildUi, seriousViolations, startDashboardSimulator } from "../support/dashboard-page.ts";
import { bearer, DEMO_TOKEN, orderBody, placeOrder, send } from "../support/http.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const IMAGES = join(ROOT, "docs/images");
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/** Within this the page must show what happened, with no reload. */
const LIVE_MS = 2_000;

const skip = chromiumSkipReason();

/**
 * A screenshot for the docs. What changes from run to run (request counts,
 * latencies, request ids: `data-volatile`) is masked, so an image changes only when the page does.
 */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: join(IMAGES, name),
    fullPage: true,
    mask: [page.locator("[data-volatile]")],
    maskColor: "#d4d4d8",
    // One box size whatever the value, so a longer latency does not move the mask.
    style: "[data-volatile] { display: inline-block; width: 6em; overflow: hidden; vertical-align: bottom; }",
    animations: "disabled",
  });
}

describe.skipIf(skip !== undefined)(
  `the dashboard in Chromium${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let browser: Browser;
    let sim: Simulator;
    let receiver: WebhookHandler;
    let page: Page;
    const consoleErrors: string[] = [];
    /** Requests to anything but the simulator: the page must work offline. */
    const offHost: string[] = [];

    beforeAll(async () => {
      const uiDir = await buildUi();
      receiver = await startWebhookHandler(SECRET);
      sim = await startDashboardSimulator(uiDir, { url: receiver.url, secret: SECRET }, [
        createScenariosPlugin({ seed: 1 }),
      ]);
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(error.message));
      page.on("request", (request) => {
        const { hostname, protocol } = new URL(request.url());
        if (protocol !== "data:" && protocol !== "blob:" && hostname !== "127.0.0.1") offHost.push(request.url());
      });
      await page.goto(dashboardLink(sim.url, sim.adminToken));
      await page
        .getByRole("status")
        .filter({ hasText: "Live" })
        .waitFor({ timeout: LIVE_MS * 2 });
    });

    afterAll(async () => {
      await page?.close();
      await browser?.close();
      await sim?.close();
      await receiver?.close();
    });

    it("shows an order placed through the public API without a reload", async () => {
      expect((await placeOrder(sim, orderBody({ reference: "live-1", amount: 100 }))).status).toBe(200);
      await page.locator('tr[data-order="live-1"]').waitFor({ timeout: LIVE_MS });
      expect(await page.locator('tr[data-order="live-1"] .status').textContent()).toContain("0 Pending");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "dashboard-orders.png");
    });

    it("forces a failure and shows the status, the history and the refunded balance", async () => {
      await page.getByRole("button", { name: "live-1" }).click();
      const status = page.getByTestId("order-status");
      await status.filter({ hasText: "0 Pending" }).waitFor({ timeout: LIVE_MS });
      await page.getByTestId("wallet-balance").filter({ hasText: "99900 KES" }).waitFor({ timeout: LIVE_MS });
      await page.getByRole("button", { name: "Force failure" }).click();
      await status.filter({ hasText: "2 " }).waitFor({ timeout: LIVE_MS });
      await page.getByTestId("wallet-balance").filter({ hasText: "100000 KES" }).waitFor({ timeout: LIVE_MS });
      expect(await page.getByTestId("timeline").locator("li").count()).toBe(2);
    });

    it("redelivers a webhook and lists the new attempt", async () => {
      const attempts = page.getByTestId("attempts").locator("li");
      await page.getByRole("button", { name: "Redeliver" }).first().waitFor({ timeout: LIVE_MS });
      const before = await attempts.count();
      await page.getByRole("button", { name: "Redeliver" }).first().click();
      await attempts.nth(before).waitFor({ timeout: LIVE_MS });
      expect(await attempts.nth(before).textContent()).toContain("(redeliver)");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "dashboard-order.png");
    });

    it("advances a virtual clock with a button and shows pending orders finalise", async () => {
      await placeOrder(sim, orderBody({ reference: "clock-1" }));
      await page.getByRole("button", { name: "Clock" }).click();
      await page.getByTestId("pending-orders").filter({ hasText: "1" }).waitFor({ timeout: LIVE_MS });
      await page.getByRole("button", { name: "+1 s" }).click();
      await page.getByTestId("pending-orders").filter({ hasText: "0" }).waitFor({ timeout: LIVE_MS });
      // A live reload can land mid-advance; the screenshot waits for the advance's own.
      await page.getByRole("status").filter({ hasText: "Advance 1000 ms: done" }).waitFor({ timeout: LIVE_MS });
      await page.getByTestId("pending-events").filter({ hasText: /^0$/ }).waitFor({ timeout: LIVE_MS });
      await screenshot(page, "dashboard-clock.png");
      await page.getByRole("button", { name: "Orders" }).click();
      await page.locator('tr[data-order="clock-1"] .status', { hasText: "20 Success" }).waitFor({ timeout: LIVE_MS });
    });

    it("names the time of a reversal still due on a final order", async () => {
      // 0700000004 succeeds, then is reversed 10 s later (a magic test account).
      await placeOrder(sim, orderBody({ reference: "reversed-later", account: "0700000004" }));
      const lookup = () => send(sim, "/v1/airtime/reversed-later", { headers: bearer(DEMO_TOKEN) });
      let succeeded = await lookup();
      for (let second = 0; second < 10 && succeeded.body.status !== 20; second++) {
        await sim.clock.advance(1_000);
        succeeded = await lookup();
      }
      expect(succeeded.body.status).toBe(20);
      const reversalAt = new Date(Date.parse(succeeded.body.updatedAt) + 10_000).toISOString();
      await page.getByRole("button", { name: "Clock", exact: true }).click();
      await page.getByRole("button", { name: "+1 s" }).click();
      await page.getByRole("status").filter({ hasText: "Advance 1000 ms: done" }).waitFor({ timeout: LIVE_MS });
      const nextStep = page.getByTestId("next-order-step").locator(`time[datetime="${reversalAt}"]`);
      await nextStep.waitFor({ timeout: LIVE_MS });
      expect(await nextStep.getAttribute("title")).toBe(`${reversalAt.replace("T", " ").slice(0, 23)} UTC`);
      await sim.clock.advance(9_000);
      await page.getByRole("button", { name: "+1 s" }).click();
      await page.getByTestId("next-order-step").filter({ hasText: /^—$/ }).waitFor({ timeout: LIVE_MS });
    });

    it("activates a scenario and the next order shows its effect", async () => {
      await page.getByRole("button", { name: "Scenarios" }).click();
      await page.getByRole("button", { name: "Activate processing-path", exact: true }).click();
      await page.locator('tr[data-scenario="processing-path"]', { hasText: "everyone" }).waitFor({ timeout: LIVE_MS });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "dashboard-scenarios.png");
      await page.getByRole("button", { name: "Orders" }).click();
      await placeOrder(sim, orderBody({ reference: "scenario-1" }));
      await page.getByRole("button", { name: "scenario-1" }).click({ timeout: LIVE_MS });
      await page.getByTestId("fired").filter({ hasText: "processing-path" }).waitFor({ timeout: LIVE_MS });
      await sim.clock.advance(500);
      await page.getByTestId("order-status").filter({ hasText: "3 " }).waitFor({ timeout: LIVE_MS });
    });

    it("renders the API reference offline and places an order with its try-it form", async () => {
      await page.getByRole("button", { name: "API reference" }).click();
      // An operation's title is its summary beside an empty share link; the Balance tag's title comes first.
      for (const title of ["Send airtime", "Transaction status by reference", "Balance"]) {
        await page
          .getByTestId("redoc")
          .locator("h2")
          .filter({ hasText: new RegExp(`^\\s*${title}\\s*$`) })
          .last()
          .waitFor({ timeout: 10_000 });
      }
      const form = page.getByRole("form", { name: "Try it" });
      await form.getByRole("option").first().waitFor({ state: "attached", timeout: LIVE_MS });
      // The token is offered masked, never in full.
      expect(await form.getByLabel("Customer token").textContent()).not.toContain(DEMO_TOKEN);
      // The Idempotency-Key box shows its whole UUID: nothing of the value is scrolled out of sight.
      const key = form.getByLabel("Idempotency-Key");
      expect(await key.inputValue()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const fits = await key.evaluate((input) => ({ scroll: input.scrollWidth, client: input.clientWidth }));
      expect(fits.scroll, "the key is cut off").toBeLessThanOrEqual(fits.client);
      await form.getByRole("button", { name: "Send" }).click();
      await form.getByTestId("try-it-status").filter({ hasText: "200" }).waitFor({ timeout: LIVE_MS });
      expect(JSON.parse((await form.getByTestId("try-it-body").textContent()) ?? "")).toMatchObject({
        id: expect.any(String),
        status: 0,
      });
      expect(await seriousViolations(page, ".try-it")).toEqual([]);
      expect(offHost).toEqual([]);
    });

    it("logged no console errors", () => {
      expect(consoleErrors).toEqual([]);
    });

    it("shows the loader's errors for a scenario that does not validate", async () => {
      await page.getByRole("button", { name: "Scenarios" }).click();
      await page.getByLabel("Scenario YAML").fill("name: Not A Name\nrules: []\n");
      await page.getByRole("button", { name: "Validate and load" }).click();
      const errors = page.getByRole("alert", { name: "Validation errors" });
      await errors.waitFor({ timeout: LIVE_MS });
      expect(await errors.textContent()).toContain("/name");
      // The refused upload is the one request the browser reports.
      expect(consoleErrors).toEqual([expect.stringContaining("status of 400")]);
    });
  },
);
