// The dashboard's server side: the page without a token (only files the build
// wrote), the live event stream and the schedule summary behind it.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBanner } from "../../src/cli/serve.ts";
import { createDashboardPlugin, dashboardLink } from "../../src/dashboard/dashboard-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import {
  admin,
  DEMO_TOKEN,
  expectProblem,
  orderBody,
  placeOrder,
  send,
  startSimulatorOnPort,
} from "../support/http.ts";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function builtUi(): string {
  const dir = mkdtempSync(join(tmpdir(), "dashboard-ui-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Dashboard</title>");
  writeFileSync(join(dir, "assets", "app-1a2b.js"), "console.log(1)");
  return dir;
}

describe("/_sim/ui", () => {
  it("serves the built page and its assets without a token, and nothing else", async () => {
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin({ uiDir: builtUi() })] });
    const page = await send(sim, "/_sim/ui");
    expect(page.status).toBe(200);
    expect(page.contentType).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("<title>Dashboard</title>");
    const script = await send(sim, "/_sim/ui/assets/app-1a2b.js");
    expect(script.contentType).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect((await send(sim, "/_sim/ui/assets/other.js")).status).toBe(404);
    expect((await send(sim, "/_sim/ui/dashboard-plugin.ts")).status).toBe(404);
    // The data stays behind the token.
    expectProblem(await send(sim, "/_sim/orders"), 401, "missing_token");
  });

  it("is linked from serve's banner with the admin token in the fragment", async () => {
    sim = await startSimulatorOnPort({ adminToken: "adm_banner_0123456789", plugins: [createDashboardPlugin()] });
    expect(dashboardLink(sim.url, sim.adminToken)).toBe(`${sim.url}/_sim/ui#token=adm_banner_0123456789`);
    expect(startBanner(sim, { host: "127.0.0.1", admin: true })).toContain(
      `  dashboard: ${sim.url}/_sim/ui#token=adm_banner_0123456789\n`,
    );
  });

  it("says how to build it when it is not built", async () => {
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin({ uiDir: join(tmpdir(), "no-such-ui") })] });
    const page = await send(sim, "/_sim/ui");
    expect(page.status).toBe(404);
    expect(page.text).toContain("npm run build");
  });
});

describe("/_sim/events", () => {
  it("streams order events and public requests, and ends when the simulator closes", async () => {
    sim = await startSimulatorOnPort({ timing: "1s", plugins: [createDashboardPlugin()] });
    expectProblem(await send(sim, "/_sim/events"), 401, "missing_token");
    const res = await fetch(`${sim.url}/_sim/events`, { headers: { authorization: `Bearer ${sim.adminToken}` } });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      return text;
    };
    await placeOrder(sim, orderBody({ reference: "sse-1" }));
    expect(await readUntil('"path":"/v1/airtime"')).toContain("event: request\n");
    await sim.clock.advance(1_000);
    expect(await readUntil('"reference":"sse-1","status":20,')).toMatch(
      /event: order\ndata: \{[^\n]*"reference":"sse-1","status":20,/,
    );
    await sim.close();
    sim = undefined;
    expect((await reader.read()).done).toBe(true);
  });
});

describe("/_sim/schedule", () => {
  it("tells what is pending and when it is due", async () => {
    sim = await startSimulatorOnPort({
      timing: "2s",
      startAt: Date.UTC(2026, 0, 1),
      plugins: [createDashboardPlugin()],
    });
    await placeOrder(sim, orderBody({ reference: "due-1" }), {}, DEMO_TOKEN);
    const reply = await admin(sim, "/schedule");
    expect(reply.body).toEqual({
      mode: "virtual",
      now: "2026-01-01T00:00:00.000Z",
      pendingEvents: expect.any(Number),
      pendingOrders: 1,
      nextOrderStepAt: "2026-01-01T00:00:02.000Z",
      configuredTiming: { text: "2000ms", lowMs: 2000, highMs: 2000 },
      nextWebhookAttemptAt: null,
    });
    expect(reply.body.pendingEvents).toBeGreaterThanOrEqual(1);
  });

  it("finds the oldest pending order behind newer final ones", async () => {
    sim = await startSimulatorOnPort({
      timing: "2s",
      startAt: Date.UTC(2026, 0, 1),
      plugins: [createDashboardPlugin()],
    });
    await placeOrder(sim, orderBody({ reference: "oldest-pending" }), {}, DEMO_TOKEN);
    await sim.clock.advance(1_000);
    for (let i = 0; i < 5; i++) {
      const placed = await placeOrder(sim, orderBody({ reference: `newer-${i}` }), {}, DEMO_TOKEN);
      if (i < 3) {
        const action = { method: "POST", body: { action: "succeed" } } as const;
        expect((await admin(sim, `/orders/${placed.body.id}/transition`, action)).status).toBe(200);
      }
    }
    expect((await admin(sim, "/schedule")).body).toMatchObject({
      pendingOrders: 3,
      nextOrderStepAt: "2026-01-01T00:00:02.000Z",
    });
  });
});
