/**
 * What the dashboard's browser tests share: the front end built as
 * `npm run build` builds it, and the accessibility scan.
 */
import { readdirSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { build } from "vite";
import { expect } from "vitest";
import { createDashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import type { SimulatorPluginFactory } from "../../src/domain/plugin-port.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { DEMO_TOKEN, startSimulatorOnPort } from "./http.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const AXE_SOURCE = axe.source;
const ON_DEMAND = new Set(["redoc.standalone.js", "openapi.json"]);

/** Builds the front end as `npm run build` does, into a folder of its own; its size is reported. */
export async function buildUi(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), "dashboard-ui-"));
  await build({ configFile: join(ROOT, "vite.config.ts"), logLevel: "warn", build: { outDir, emptyOutDir: true } });
  const files = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  const size = (f: (typeof files)[number]): number => statSync(join(f.parentPath, f.name)).size;
  // The API reference's files load only when its tab opens, so the first load is measured without them.
  const [onDemand, firstLoad] = [
    files.filter((f) => ON_DEMAND.has(f.name)),
    files.filter((f) => !ON_DEMAND.has(f.name)),
  ];
  const bytes = firstLoad.reduce((sum, f) => sum + size(f), 0);
  const later = onDemand.reduce((sum, f) => sum + size(f), 0);
  console.log(`dashboard bundle: ${firstLoad.length} files, ${(bytes / 1024).toFixed(1)} kB`);
  console.log(`API reference, loaded on demand: ${onDemand.length} files, ${(later / 1024).toFixed(1)} kB`);
  expect(bytes).toBeLessThan(150 * 1024);
  expect(onDemand.map((f) => f.name).sort()).toEqual([...ON_DEMAND].sort());
  expect(files.some((f) => f.name.endsWith(".map"))).toBe(false);
  return outDir;
}

/** Scans the page, or only what `scope` selects. */
export async function seriousViolations(page: Page, scope?: string): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const result = await page.evaluate(async (context) => {
    const scanner = (
      globalThis as unknown as {
        axe: { run(context?: string): Promise<{ violations: { id: string; impact: string }[] }> };
      }
    ).axe;
    return (await (context === undefined ? scanner.run() : scanner.run(context))).violations;
  }, scope);
  return result.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

/**
 * The simulator the browser tests open: a virtual clock at a fixed start, 1 s
 * orders, the demo customer with 100,000 and its webhook at `webhookUrl`,
 * immediate webhooks, the dashboard served from `uiDir`, and `more` plugins.
 */
export function startDashboardSimulator(
  uiDir: string,
  webhook: { url: string; secret: string },
  more: readonly SimulatorPluginFactory[] = [],
): Promise<Simulator> {
  return startSimulatorOnPort({
    timing: "1s",
    startAt: Date.UTC(2026, 2, 2, 9, 0),
    demo: { token: DEMO_TOKEN, balance: 100_000, webhook: { url: webhook.url, secrets: [webhook.secret] } },
    plugins: [createWebhookPlugin({ schedule: "0", jitter: 0 }), ...more, createDashboardPlugin({ uiDir })],
  });
}
