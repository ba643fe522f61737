// What a newcomer meets first: `GET /` names what the simulator serves (or,
// for a browser, sends it to the dashboard), `/openapi.json` is the public
// document, and an unknown path's 404 points back to `/`.
import { afterEach, describe, expect, it } from "vitest";
import { createDashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { expectProblem, send, startSimulatorOnPort } from "../support/http.ts";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("GET /", () => {
  it("answers a JSON index pointing to the dashboard, the OpenAPI document and the docs", async () => {
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin()] });
    const reply = await send(sim, "/");
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.body).toMatchObject({
      dashboard: "/_sim/ui",
      openapi: "/openapi.json",
      endpoints: expect.arrayContaining(["POST /v1/airtime", "GET /v1/airtime/{reference}", "GET /v1/balance"]),
      docs: expect.stringContaining("docs/"),
    });
    // The index is public: it never carries a token.
    expect(reply.text).not.toContain(sim.adminToken);
  });

  it("redirects a browser to the dashboard", async () => {
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin()] });
    const res = await fetch(`${sim.url}/`, {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/_sim/ui");
  });

  it("names no dashboard where there is none", async () => {
    sim = await startSimulatorOnPort();
    const reply = await send(sim, "/", { headers: { accept: "text/html" } });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty("dashboard");
    expect(reply.body).toMatchObject({ openapi: "/openapi.json" });
  });
});

describe("GET /openapi.json", () => {
  it("is the public OpenAPI document as JSON", async () => {
    sim = await startSimulatorOnPort();
    const reply = await send(sim, "/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/), paths: { "/v1/airtime": {} } });
  });
});

describe("an unknown path", () => {
  it("is a 404 problem that points to GET /", async () => {
    sim = await startSimulatorOnPort();
    const reply = await send(sim, "/v1/airtimes");
    expectProblem(reply, 404, "not_found");
    expect(reply.body.detail).toContain("GET / lists what this simulator serves");
  });
});
