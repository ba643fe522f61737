/**
 * `--redis-durability replicated` covers the webhook delivery log as well
 * as the orders, on the six-node test cluster. A delivery is written on its
 * customer's slot and on the index across customers (`{deliveries}`),
 * usually other masters than its order's; a failover that dropped it after
 * the order's step completed would leave the step's webhook unsent for
 * good. With the replica of the index's master killed, a delivery written
 * there is not acknowledged (`StoreNotReplicatedError`, so its step fails
 * and announces the change again after its lease), while it stays applied
 * on the master for that second announcement to find.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import { StoreNotReplicatedError } from "../../src/domain/ports.ts";
import { createJournal } from "../../src/http/journal.ts";
import { keySlot } from "../../src/redis/key-slot.ts";
import { openBackend } from "../../src/simulator/backend.ts";
import { rangeServing, redisClusterSkipReason, useRedisCluster } from "../support/redis-cluster.ts";
import { delivery } from "../webhooks/delivery-store-contract.ts";

const skip = redisClusterSkipReason();

describe.skipIf(skip !== undefined)(
  `replicated durability and the delivery log${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { cluster } = useRedisCluster();

    it("acknowledges a delivery only once a replica of each master it went to holds it", async () => {
      const ranges = await cluster().slotRanges();
      const impaired = rangeServing(ranges, keySlot("{deliveries}"));
      const onImpaired = (id: string) => rangeServing(ranges, keySlot(`{${id}}`)).masterPort === impaired.masterPort;
      const ids = Array.from({ length: 50 }, (_, i) => `dlv-${i}`);
      // One customer whose own slot lies on a healthy master (only the index's write can fail its insert),
      // one whose deliveries live on the impaired master itself.
      const [customer, local] = [ids.find((id) => !onImpaired(id)), ids.find(onImpaired)];
      if (customer === undefined || local === undefined) throw new Error("the customers tried all hash alike");
      const backend = await openBackend({
        store: cluster().url,
        durability: "replicated",
        clock: "real",
        startAt: undefined,
        statusTable: DEFAULT_STATUS_TABLE,
        stateFile: undefined,
        journal: createJournal(100),
        journalLimit: 100,
        onError: () => undefined,
        onWarning: () => undefined,
      });
      const deliveries = backend.deliveryStore;
      if (deliveries === undefined) throw new Error("a Redis backend shares its delivery log");
      try {
        expect(await deliveries.insert(delivery("while-replicated", local))).toBe(true);

        for (const port of impaired.replicaPorts)
          await cluster()
            .nodes.find((node) => node.port === port)
            ?.kill();

        await expect(deliveries.insert(delivery("unreplicated", customer))).rejects.toBeInstanceOf(
          StoreNotReplicatedError,
        );
        // Still applied on the master: the step's second announcement finds it rather than losing it.
        expect(await deliveries.get("unreplicated")).toMatchObject({ id: "unreplicated", customerId: customer });
        // An attempt's outcome written there is not acknowledged either: its job fails, the attempt is made again.
        await expect(
          deliveries.update("while-replicated", (current) => ({ ...current, state: "delivered", deliveredAt: 1 })),
        ).rejects.toBeInstanceOf(StoreNotReplicatedError);
      } finally {
        await backend.stop();
        await backend.close();
      }
    });
  },
);
