// The dashboard in Chromium says what the simulator did, no more and no less:
// the headline counts every committed order, an order's "as placed" block is
// the answer it was placed with, the Try-it answer is not hidden under Redoc's
// sidebar, a wrong token says what to do, final statuses are coloured, and
// the Orders table keeps up with a steady stream of orders and shows the
// newest ones.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboardPlugin, dashboardLink } from "../../src/dashboard/dashboard-plugin.ts";
import { createScenariosPlugin } from "../../src/scenarios/scenarios-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { chromiumSkipReason, launchChromium } from "../support/browser.ts";
import { buildUi, seriousViolations } from "../support/dashboard-page.ts";
import { admin, orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";

const LIVE_MS = 2_000;
/** The magic account whose first order commits and then loses its response. */
const LOST_RESPONSE_ACCOUNT = "0700000007";

const skip = chromiumSkipReason();

/** Whether two boxes share any area. */
function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
/** The colour the browser draws an element's text in. */
function textColour(element: Locator): Promise<string> {
  return element.evaluate(
    (node) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(node).color,
  );
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

describe.skipIf(skip !== undefined)(
  `the dashboard's figures and states in Chromium${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let browser: Browser;
    let sim: Simulator;
    let page: Page;

    beforeAll(async () => {
      const uiDir = await buildUi();
      sim = await startSimulatorOnPort({
        timing: "1s",
        plugins: [createScenariosPlugin({ seed: 1 }), createDashboardPlugin({ uiDir })],
      });
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    });

    afterAll(async () => {
      await page?.close();
      await browser?.close();
      await sim?.close();
    });

    async function open(token: string): Promise<void> {
      await page.goto(dashboardLink(sim.url, token));
      await page.reload();
    }

    it("counts an order whose response was lost among the orders placed", async () => {
      expect((await placeOrder(sim, orderBody({ reference: "kept-1" }))).status).toBe(200);
      await expect(
        placeOrder(sim, orderBody({ reference: "lost-1", account: LOST_RESPONSE_ACCOUNT })),
      ).rejects.toThrow();
      expect((await admin(sim, "/orders?reference=lost-1")).body).toMatchObject({ orders: [{ reference: "lost-1" }] });

      await open(sim.adminToken);
      await page.locator('tr[data-order="lost-1"]').waitFor({ timeout: LIVE_MS });
      const placed = page.locator(".headline div", { hasText: "Orders placed" }).locator("dd");
      expect(await placed.textContent()).toBe(String(await page.locator("tr[data-order]").count()));
      expect(await placed.textContent()).toBe("2");
    });

    it("shows an order's answer as placed, not its status now", async () => {
      const order = (await admin(sim, "/orders?reference=kept-1")).body as { orders: { id: string }[] };
      const id = order.orders[0]?.id ?? "";
      for (const action of ["succeed", "reverse"]) {
        expect((await admin(sim, `/orders/${id}/transition`, { body: { action } })).status).toBe(200);
      }
      await page.getByRole("button", { name: "kept-1" }).click();
      await page.getByTestId("order-status").filter({ hasText: "8 Reversed" }).waitFor({ timeout: LIVE_MS });
      const asPlaced = JSON.parse((await page.getByTestId("as-placed").textContent()) ?? "");
      expect(asPlaced).toEqual({ id, reference: "kept-1", status: 0, message: "Pending" });
    });

    it("colours Failed and Timeout as Success is coloured, readably", async () => {
      for (const [reference, action] of [
        ["failed-1", "fail"],
        ["timeout-1", "timeout"],
        ["success-1", "succeed"],
      ] as const) {
        const placed = await placeOrder(sim, orderBody({ reference }));
        const id = (placed.body as { id: string }).id;
        expect((await admin(sim, `/orders/${id}/transition`, { body: { action } })).status).toBe(200);
      }
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      await page.locator('tr[data-order="timeout-1"] .status', { hasText: "6 Timeout" }).waitFor({ timeout: LIVE_MS });
      const colour = (reference: string) => textColour(page.locator(`tr[data-order="${reference}"] .status`));
      const plain = await textColour(page.locator('tr[data-order="failed-1"] td').first());
      const [failed, timeout, success] = [
        await colour("failed-1"),
        await colour("timeout-1"),
        await colour("success-1"),
      ];
      expect(failed).not.toBe(plain);
      expect(timeout).not.toBe(plain);
      expect(new Set([failed, success]).size).toBe(2);
      expect(await seriousViolations(page, "table")).toEqual([]);
    });

    it("keeps the Try-it answer clear of Redoc's sidebar", async () => {
      await page.getByRole("button", { name: "API reference", exact: true }).click();
      const redoc = page.getByTestId("redoc");
      // The sidebar and its footer, which Redoc pins to the bottom of the window as if it owned the page.
      const sidebarParts = [redoc.locator(".menu-content"), redoc.getByText("API docs by Redocly")];
      await sidebarParts[1]?.waitFor({ state: "attached", timeout: 10_000 });
      const form = page.getByRole("form", { name: "Try it" });
      await form.getByRole("option").first().waitFor({ state: "attached", timeout: LIVE_MS });
      await form.getByRole("button", { name: "Send" }).click();
      await form.getByTestId("try-it-answer").waitFor({ timeout: LIVE_MS });
      const covered = async (): Promise<boolean[]> => {
        const answer = (await form.getByTestId("try-it-answer").boundingBox()) as Box;
        const boxes = await Promise.all(sidebarParts.map((part) => part.boundingBox()));
        return boxes.map((box) => box !== null && overlaps(box, answer));
      };
      expect(await covered()).toEqual([false, false]);
      // Scrolled down to the answer's last line, as a reader would.
      await form.getByTestId("try-it-body").scrollIntoViewIfNeeded();
      expect(await covered()).toEqual([false, false]);
    });

    it("refreshes the Orders table while orders keep arriving, not only once they stop", async () => {
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      let stopped = false;
      let finished = false;
      // An order every 100 ms or so for six seconds: the events never leave a quiet quarter-second.
      const load = (async () => {
        for (let i = 0; !stopped && i < 60; i++) {
          await placeOrder(sim, orderBody({ reference: `stream-${i}` }));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        finished = true;
      })();
      try {
        await page.locator('tr[data-order="stream-0"]').waitFor({ timeout: LIVE_MS });
        expect(finished).toBe(false);
      } finally {
        stopped = true;
        await load;
      }
    });

    it("never asks a slow server again while its last reload is still out", async () => {
      let out = 0;
      let mostAtOnce = 0;
      let asked = 0;
      // Every scrape answered 1.5 s late, as a large Redis store might.
      await page.route("**/_sim/metrics", async (route) => {
        asked++;
        mostAtOnce = Math.max(mostAtOnce, ++out);
        const response = await route.fetch();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.fulfill({ response }).catch(() => undefined);
        out--;
      });
      try {
        for (let i = 0; i < 40; i++) {
          await placeOrder(sim, orderBody({ reference: `slow-${i}` }));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(asked).toBeGreaterThanOrEqual(2);
        expect(mostAtOnce).toBe(1);
      } finally {
        await page.unroute("**/_sim/metrics");
      }
    });

    it("lists the newest orders once there are more than the thousand it shows", async () => {
      const topUp = { wallets: [{ shortcode: null, balance: 10_000_000 }] };
      expect((await admin(sim, "/customers/demo", { method: "PATCH", body: topUp })).status).toBe(200);
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => placeOrder(sim, orderBody({ reference: `bulk-${batch}-${i}` }))),
        );
      }
      expect((await placeOrder(sim, orderBody({ reference: "newest-of-many" }))).status).toBe(200);
      // A thousand live events each re-read the list: on a busy machine the last one lands late.
      await page.locator('tr[data-order="newest-of-many"]').waitFor({ timeout: LIVE_MS * 5 });
      expect(await page.locator('tr[data-order="kept-1"]').count()).toBe(0);
    });

    it("with a wrong token, says to reopen the printed link instead of waiting for data", async () => {
      await open("not-the-admin-token");
      const alert = page.getByRole("alert").filter({ hasText: "printed" });
      await alert.waitFor({ timeout: LIVE_MS });
      expect(await alert.textContent()).toMatch(/reopen the link/i);
      expect(await page.getByText("No orders yet.").count()).toBe(0);
      expect(await page.getByText("Reconnecting…").count()).toBe(0);
    });
  },
);
