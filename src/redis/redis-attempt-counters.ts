/**
 * Scenario attempt counters on Redis: one hash per customer, under the
 * customer's hash tag, each field a rule's count for one attempt key,
 * raised with HINCRBY. A customer's counts expire a day after its last
 * counted attempt (idempotency keys are kept 24 h by default), which bounds
 * what a long load test leaves behind.
 */
import { type RedisClient, unlinkMatching } from "./redis-client.ts";
import type { SharedAttemptCounters } from "../domain/scenario-engine.ts";
import { type RedisKeyOptions, redisKeySettings } from "./redis-settings.ts";

/** How long a customer's counts outlive its last counted attempt, wall-clock ms. */
const COUNTS_TTL_MS = 24 * 3_600_000;

/**
 * @example
 * const counters = createRedisAttemptCounters(redis);
 * await counters.increment("acme", "request:acme\u0000flaky\u00000", "k:key-1"); // 1, then 2 on any instance
 */
export function createRedisAttemptCounters(redis: RedisClient, options: RedisKeyOptions = {}): SharedAttemptCounters {
  const { prefix } = redisKeySettings(options);
  const keyOf = (customerId: string): string => `${prefix}{${customerId}}:attempts`;
  return {
    async increment(customerId, counter, attempt) {
      const key = keyOf(customerId);
      const [counted] = (await redis
        .multi()
        .hincrby(key, `${counter}\u0000${attempt}`, 1)
        .pexpire(key, COUNTS_TTL_MS)
        .exec()) as [[Error | null, number], unknown];
      if (counted[0] !== null) throw counted[0];
      return counted[1];
    },
    async forget(customerId) {
      if (customerId !== undefined) {
        await redis.del(keyOf(customerId));
        return;
      }
      await unlinkMatching(redis, `${prefix}{*}:attempts`);
    },
  };
}
