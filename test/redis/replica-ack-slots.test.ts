/**
 * `--redis-durability replicated` on the six-node test cluster waits only
 * on the masters a write went to: with the replica of one master killed,
 * orders whose writes all lie on the other masters are acknowledged, and
 * each order that wrote to the impaired master (its customer's slot, its
 * job's shard) answers 503 `store_not_replicated` — exactly those, never a
 * 500. Which master each order's writes reached is read back from the
 * cluster afterwards, not assumed. The impaired master holds nothing a
 * request reads across customers, since its reads queue behind its WAITs.
 */
import { describe, expect, it } from "vitest";
import { jobShards } from "../../src/redis/job-shards.ts";
import { keySlot } from "../../src/redis/key-slot.ts";
import { sharedKeys } from "../../src/redis/redis-keys.ts";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { bearer, send } from "../support/http.ts";
import { rangeServing, redisClusterSkipReason, type SlotRange, useRedisCluster } from "../support/redis-cluster.ts";

const skip = redisClusterSkipReason();
const ADMIN = "replica-ack-admin-0001";

const masterOf = (ranges: readonly SlotRange[], slot: number): number => rangeServing(ranges, slot).masterPort;

describe.skipIf(skip !== undefined)(
  `replicated durability waits where the write went${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { cluster, client } = useRedisCluster();

    it("answers 503 only for the orders that wrote to a master without a replica", { timeout: 60_000 }, async () => {
      const ranges = await cluster().slotRanges();
      // One shard of each index, so where an order's index writes go is known. The impaired master
      // holds none of them, nor the static-token index every first request with a token reads: its
      // WAITs hold its one connection a second each, and a read queued behind three of them outlives
      // the 3 s command timeout (503 store_unavailable for a customer whose writes all lie elsewhere).
      const across = ["{idx:0}", "{issued:0}", sharedKeys("ah:").tokens];
      const busy = new Set(across.map((key) => masterOf(ranges, keySlot(key))));
      const impaired = ranges.find((range) => !busy.has(range.masterPort));
      if (impaired === undefined) throw new Error("every master holds an index");
      const customers = Array.from({ length: 20 }, (_, i) => `ack-${i}`);
      // Few on the impaired master: each of its writes holds the connection for the whole WAIT timeout.
      const onImpaired = customers
        .filter((id) => masterOf(ranges, keySlot(`{${id}}`)) === impaired.masterPort)
        .slice(0, 3);
      const elsewhere = customers
        .filter((id) => masterOf(ranges, keySlot(`{${id}}`)) !== impaired.masterPort)
        .slice(0, 10);
      expect(onImpaired.length).toBeGreaterThan(0);

      const sim = await createSimulator({
        clock: "virtual",
        adminToken: ADMIN,
        scenarios: false,
        onError: () => undefined,
        store: cluster().url,
        redisDurability: "replicated",
        redisJobShards: 1,
      });
      try {
        await sim.listen(0);
        for (const id of [...onImpaired, ...elsewhere]) {
          const created = await send(sim.url, "/_sim/customers", {
            method: "POST",
            headers: bearer(ADMIN),
            body: { id, token: `${id}-token-000001`, balance: 1_000 },
          });
          expect(created.status).toBe(201);
        }
        for (const port of impaired.replicaPorts)
          await cluster()
            .nodes.find((node) => node.port === port)
            ?.kill();

        const replies = await Promise.all(
          [...onImpaired, ...elsewhere].map(async (id) => {
            const reply = await send(sim.url, "/v1/airtime", {
              method: "POST",
              headers: { ...bearer(`${id}-token-000001`), "idempotency-key": `order-${id}` },
              body: { account: "0712345678", amount: 10, currency: "KES", reference: `order-${id}` },
            });
            return { id, status: reply.status, code: (reply.body as { code?: string }).code };
          }),
        );

        // Where each order's writes went: its customer's slot and its job's shard, read back from the cluster.
        const store = createRedisStore(client());
        const jobSlotByOrder = new Map<string, number>();
        for (const shard of jobShards("ah:", 1)) {
          for (const job of Object.values(await client().hgetall(shard.data))) {
            const { orderId } = (JSON.parse(job) as { payload: { orderId: string } }).payload;
            jobSlotByOrder.set(orderId, keySlot(shard.data));
          }
        }
        const expected = await Promise.all(
          replies.map(async ({ id }) => {
            const order = await store.getOrderByReference(id, `order-${id}`);
            const slots = [keySlot(`{${id}}`), jobSlotByOrder.get(order?.id ?? "") ?? -1];
            const touched = slots.some((slot) => slot >= 0 && masterOf(ranges, slot) === impaired.masterPort);
            return touched ? { id, status: 503, code: "store_not_replicated" } : { id, status: 200, code: undefined };
          }),
        );
        expect(replies).toEqual(expected);
        expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThan(0);
        expect(replies.filter((reply) => onImpaired.includes(reply.id) && reply.status !== 503)).toEqual([]);
      } finally {
        await sim.close();
      }
    });
  },
);
