/** A mistyped scenario name over HTTP, in the header or the admin API, is answered with the name it most likely meant. */
import { afterEach, expect, it } from "vitest";
import { createScenariosPlugin } from "../../src/scenarios/scenarios-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { admin, expectProblem, orderBody, placeOrder, startSimulator } from "../support/http.ts";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it("names the loaded scenario an X-Sim-Scenario header most likely meant", async () => {
  sim = await startSimulator({ plugins: [createScenariosPlugin({ seed: 1 })] });
  const reply = await placeOrder(sim, orderBody(), { "x-sim-scenario": "flaky-gatway" });
  expectProblem(reply, 400, "unknown_scenario");
  expect(reply.body.detail).toContain("did you mean 'flaky-gateway'?");
});

it("names the loaded scenario an activation most likely meant", async () => {
  sim = await startSimulator({ plugins: [createScenariosPlugin({ seed: 1 })] });
  const reply = await admin(sim, "/scenarios/slow-provder/activate", { body: {} });
  expectProblem(reply, 404, "not_found");
  expect(reply.body.detail).toContain("did you mean 'slow-provider'?");
});
