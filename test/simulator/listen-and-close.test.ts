/**
 * The simulator on a real port: listen() and a graceful close(). Apart from
 * the in-process suites, since a file reaches its simulators one way only.
 */
import { describe, expect, test } from "vitest";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { balanceOf, DEMO_TOKEN, orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";

describe("createSimulator", () => {
  test("listen() answers on 127.0.0.1 with a free port; url throws before listen", async () => {
    const sim = await createSimulator({ defaultPlugins: false });
    try {
      expect(() => sim.url).toThrow(/listen/);
      const url = await sim.listen();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sim.url).toBe(url);
      expect(sim.demo?.customerId).toBe("demo");
      expect(sim.adminToken).toMatch(/^adm_/);
      expect(await balanceOf(sim, sim.demo?.token)).toBe(100_000);
    } finally {
      await sim.close();
    }
  });
});

describe("close", () => {
  test("close() stops accepting but finishes the request in flight", async () => {
    let entered: () => void = () => {};
    const accepted = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const sim = await startSimulatorOnPort({
      plugins: [
        () => ({
          name: "slow",
          scenarios: {
            async evaluate() {
              entered();
              return { fired: [], latencyMs: 300 };
            },
          },
        }),
      ],
    });
    const inFlight = placeOrder(sim, orderBody());
    // The server is handling the order once the plugin is consulted; close while it waits out its latency.
    await accepted;
    const closing = sim.close();
    const reply = await inFlight;
    await closing;
    expect(reply.status).toBe(200);
    await expect(
      fetch(`${sim.url}/v1/balance`, { headers: { authorization: `Bearer ${DEMO_TOKEN}` } }),
    ).rejects.toThrow();
  });
});
