/**
 * The network fault scenarios on the six-node Redis Cluster: every node sits
 * behind a fault proxy of its own and announces the proxy's port, so the
 * simulators' cluster client (and every `MOVED` it follows) reaches each
 * node through it. Two simulators (real clock) share the cluster under
 * steady load while a fault hits every node's link at once: latency with
 * jitter, resets every 2 s, a 5 s blackhole. Then one master, the one
 * serving the load's customer, is cut off for longer than
 * `cluster-node-timeout` (its proxy blackholed and the process stopped,
 * so neither clients nor the cluster bus hear from it): its replica is
 * promoted, and once healed the old master rejoins as a replica.
 *
 * The promises checked, and the figures printed, are the one-Redis
 * scenarios' (`test/support/fault-scenario.ts`). The network faults run with
 * `--redis-durability memory`: they lose nothing Redis had, whatever the
 * level. The failover runs with `replicated`, the level that promises an
 * acknowledged order survives one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { keySlot } from "../../src/redis/key-slot.ts";
import { startCountingReceiver } from "../support/counting-receiver.ts";
import type { FaultProxy } from "../support/fault-proxy.ts";
import {
  FAULT_SCALE,
  NETWORK_FAULTS,
  runFaultScenario,
  sleep,
  startScenarioSimulator,
} from "../support/fault-scenario.ts";
import {
  rangeServing,
  redisClusterSkipReason,
  startRedisCluster,
  type TestRedisCluster,
} from "../support/redis-cluster.ts";
import { flushMasters } from "../support/shared-redis.ts";

const skip = redisClusterSkipReason();
/** Longer than the test cluster's `cluster-node-timeout` (2 s) and its election: the replica takes over. */
const CUT_OFF_MS = 8_000;

describe.skipIf(skip !== undefined)(
  `network faults under load on a six-node Redis Cluster${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let cluster: TestRedisCluster | undefined;
    let run = 0;
    const cleanups: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      cluster = await startRedisCluster({ proxied: true });
    }, 60_000);
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(async () => {
      await cluster?.stop();
    });
    const proxies = () => (cluster?.nodes ?? []).map((node) => node.proxy as FaultProxy);

    async function twoSimulators(durability: "memory" | "replicated") {
      const running = cluster as TestRedisCluster;
      await flushMasters(running);
      const receiver = await startCountingReceiver();
      cleanups.push(() => receiver.close());
      const urls: string[] = [];
      for (let i = 0; i < 2; i++) {
        const sim = await startScenarioSimulator(running.url, receiver.url, durability);
        cleanups.push(() => sim.close());
        urls.push(sim.url);
      }
      return { receiver, urls, prefix: `c${++run}` };
    }

    for (const fault of NETWORK_FAULTS) {
      it(`keeps every promise through ${fault.name} on every node`, { timeout: 180_000 }, async () => {
        const target = await twoSimulators("memory");
        await runFaultScenario({ ...target, unavailableCodes: ["store_unavailable"] }, `cluster, ${fault.name}`, () =>
          fault.run(proxies()),
        );
      });
    }

    it(
      "keeps every promise when the customer's master is cut off until its replica takes over",
      {
        timeout: 240_000,
      },
      async () => {
        const running = cluster as TestRedisCluster;
        const target = await twoSimulators("replicated");
        const range = rangeServing(await running.slotRanges(), keySlot("{demo}"));
        const victim = running.nodes.find((node) => node.proxy?.port === range.masterPort);
        if (victim === undefined) throw new Error(`no node announces port ${range.masterPort}`);
        let promotedAfterMs = Number.NaN;
        // While the promoted master has no replica yet, `replicated` answers 503 store_not_replicated.
        const unavailableCodes = ["store_unavailable", "store_not_replicated"];
        await runFaultScenario(
          { ...target, unavailableCodes },
          "cluster, a master cut off past its node timeout",
          async () => {
            const cutAt = Date.now();
            victim.proxy?.blackhole();
            victim.pause();
            const servedBy = async () => rangeServing(await running.slotRanges(), keySlot("{demo}")).masterPort;
            await expect.poll(servedBy, { timeout: 30_000, interval: 100 }).not.toBe(range.masterPort);
            promotedAfterMs = Date.now() - cutAt;
            await sleep(Math.max(0, CUT_OFF_MS * FAULT_SCALE - promotedAfterMs));
            victim.resume();
            victim.proxy?.heal();
          },
        );
        console.log(`cluster, a master cut off: its replica promoted ${promotedAfterMs} ms after the cut`);
        expect(promotedAfterMs).toBeGreaterThan(2_000);
      },
    );
  },
);
