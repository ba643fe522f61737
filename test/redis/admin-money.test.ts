/**
 * Money under admin traffic (`test/support/admin-money.ts`) on the memory
 * store and on Redis, five seeds each: money is conserved, no debit is
 * undone and nothing answers a 5xx.
 */
import { describe, it } from "vitest";
import { assertMoneyUnderAdminTraffic } from "../support/admin-money.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const SEEDS = [1, 2, 3, 4, 5];

describe("money under admin traffic on the memory store", () => {
  for (const seed of SEEDS) {
    it(`conserves money and undoes no debit, seed ${seed}`, { timeout: 120_000 }, async () => {
      await assertMoneyUnderAdminTraffic({ seed });
    });
  }
});

const skip = redisSkipReason();
describe.skipIf(skip !== undefined)(`money under admin traffic on the redis store`, () => {
  const redis = useRedis();
  for (const seed of SEEDS) {
    it(`conserves money and undoes no debit, seed ${seed}`, { timeout: 120_000 }, async () => {
      await assertMoneyUnderAdminTraffic({
        seed,
        store: redis.server().url,
        prepare: () => redis.client().flushdb(),
      });
    });
  }
});
