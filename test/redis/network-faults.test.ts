/**
 * Faults of the network between the simulators and Redis, under steady
 * load: two simulators (real clock) reach one redis-server through the
 * tests' fault proxy while workers place orders, replay keys and look orders
 * up, and every final status is sent to a real webhook receiver. Each
 * scenario checks what the simulator promises whatever the network does,
 * and prints its figures (`test/support/fault-scenario.ts`). The same
 * scenarios on the six-node cluster are in `network-faults-cluster.test.ts`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { startCountingReceiver } from "../support/counting-receiver.ts";
import { startFaultProxy } from "../support/fault-proxy.ts";
import { NETWORK_FAULTS, runFaultScenario, startScenarioSimulator } from "../support/fault-scenario.ts";
import { bearer, send } from "../support/http.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { LOAD_TOKEN } from "../support/steady-load.ts";

const skip = redisSkipReason();
describe.skipIf(skip !== undefined)(
  `network faults under load${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const redis = useRedis();
    let database = 0;
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function twoSimulators(durability: "memory" | "replicated") {
      const proxy = await startFaultProxy(redis.server().port);
      cleanups.push(() => proxy.close());
      const receiver = await startCountingReceiver();
      cleanups.push(() => receiver.close());
      const store = `redis://127.0.0.1:${proxy.port}/${++database}`;
      const sims: Simulator[] = [];
      for (let i = 0; i < 2; i++) {
        const sim = await startScenarioSimulator(store, receiver.url, durability);
        cleanups.push(() => sim.close());
        sims.push(sim);
      }
      return { proxy, receiver, sims };
    }

    it("answers 503 store_unavailable while Redis hears nothing, instead of hanging", { timeout: 60_000 }, async () => {
      const { proxy, sims } = await twoSimulators("memory");
      const [sim] = sims as [Simulator];
      proxy.blackhole();
      // The blackhole is never healed before the answers: each must come from the simulator giving up.
      const replies = await Promise.all([
        send(sim.url, "/v1/airtime", {
          method: "POST",
          headers: { ...bearer(LOAD_TOKEN), "idempotency-key": "held-1" },
          body: { account: "0712345678", amount: 10, currency: "KES", reference: "held-1" },
        }),
        send(sim.url, "/v1/airtime/held-1", { headers: bearer(LOAD_TOKEN) }),
        send(sim.url, "/v1/balance", { headers: bearer(LOAD_TOKEN) }),
      ]);
      expect(proxy.connections).toBeGreaterThan(0);
      for (const reply of replies) {
        expect(reply.status).toBe(503);
        expect(reply.body.code).toBe("store_unavailable");
      }
      proxy.heal();
    });

    for (const fault of NETWORK_FAULTS) {
      it(`keeps every promise through ${fault.name}`, { timeout: 180_000 }, async () => {
        const { proxy, receiver, sims } = await twoSimulators("memory");
        const urls = sims.map((sim) => sim.url);
        const target = { urls, receiver, prefix: `f${database}` };
        await runFaultScenario({ ...target, unavailableCodes: ["store_unavailable"] }, fault.name, () =>
          fault.run([proxy]),
        );
      });
    }
  },
);
