/**
 * Tokens issued by `POST /v1/auth/token`, kept as SHA-256 digests in shards
 * `{issued:0}` … `{issued:N-1}`, a digest's shard being its hash slot modulo
 * N: issuing a token and every request presenting one touch one shard, so
 * on Redis Cluster they spread over the masters instead of all reading one
 * `{issued}` slot. Each issue sweeps a few expired tokens of its own shard,
 * and of every shard once a second.
 */
import { shardOf } from "./job-shards.ts";
import { luaScript } from "./lua-script.ts";
import type { RedisClient } from "./redis-client.ts";

interface IssuedShardKeys {
  /** Hash: digest → `{customerId, expiresAt}` JSON. */
  readonly tokens: string;
  /** Sorted set: digest by expiry. */
  readonly expiry: string;
}

export interface IssuedEntry {
  readonly customerId: string;
  readonly expiresAt: number;
}

/** Lua forgetting a bounded batch of a shard's expired tokens (KEYS: tokens, expiry), up to the time `now` names. */
const sweepExpired = (now: string): string => `
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ${now}, 'LIMIT', 0, 64)
for _, digest in ipairs(expired) do
  redis.call('HDEL', KEYS[1], digest)
  redis.call('ZREM', KEYS[2], digest)
end
`;

/** Sweeps a shard. KEYS: tokens, expiry. ARGV: now. */
const SWEEP = `${sweepExpired("ARGV[1]")}return #expired`;

/**
 * Keeps an issued token and sweeps expired ones of its shard. KEYS: tokens,
 * expiry. ARGV: digest, JSON, expires at, issued at.
 */
const PUT_ISSUED = `${sweepExpired("ARGV[4]")}
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

/**
 * How often, in simulator time, issuing a token also sweeps every other
 * shard: the shard it goes to is swept on every issue, the others at most
 * once a second per process, so issuing stays one shard's work.
 */
const SWEEP_ALL_EVERY_MS = 1_000;

export interface IssuedTokens {
  put(digest: string, entry: IssuedEntry, issuedAt: number): Promise<void>;
  get(digest: string): Promise<IssuedEntry | undefined>;
  count(): Promise<number>;
  /** Forgets every token issued to the customer. */
  removeCustomer(customerId: string): Promise<void>;
}

/**
 * @example
 * const issued = createIssuedTokens(redis, "ah:", 16);
 * await issued.put(digest, { customerId: "cus_1", expiresAt: now + 3_600_000 }, now);
 */
export function createIssuedTokens(redis: RedisClient, prefix: string, count: number): IssuedTokens {
  const shards: IssuedShardKeys[] = Array.from({ length: count }, (_, index) => ({
    tokens: `${prefix}{issued:${index}}:tokens`,
    expiry: `${prefix}{issued:${index}}:expiry`,
  }));
  const shardFor = (digest: string): IssuedShardKeys => shards[shardOf(digest, count)] as IssuedShardKeys;
  const putIssued = luaScript(redis, PUT_ISSUED, 2);
  const sweep = luaScript(redis, SWEEP, 2);
  let sweptAllAt = Number.NEGATIVE_INFINITY;
  return {
    async put(digest, entry, issuedAt) {
      const keys = shardFor(digest);
      const others =
        issuedAt - sweptAllAt < SWEEP_ALL_EVERY_MS
          ? []
          : shards.filter((shard) => shard !== keys).map((shard) => sweep(shard.tokens, shard.expiry, issuedAt));
      if (others.length > 0) sweptAllAt = issuedAt;
      await Promise.all([
        putIssued(keys.tokens, keys.expiry, digest, JSON.stringify(entry), entry.expiresAt, issuedAt),
        ...others,
      ]);
    },
    async get(digest) {
      const json = await redis.hget(shardFor(digest).tokens, digest);
      return json === null ? undefined : (JSON.parse(json) as IssuedEntry);
    },
    async count() {
      const counts = await Promise.all(shards.map((keys) => redis.hlen(keys.tokens)));
      return counts.reduce((sum, one) => sum + one, 0);
    },
    async removeCustomer(customerId) {
      const all = await Promise.all(shards.map((keys) => redis.hgetall(keys.tokens)));
      await Promise.all(
        all.map((entries, index) => {
          const keys = shards[index] as IssuedShardKeys;
          const digests = Object.entries(entries)
            .filter(([, json]) => (JSON.parse(json) as IssuedEntry).customerId === customerId)
            .map(([digest]) => digest);
          return digests.length === 0
            ? undefined
            : redis
                .multi()
                .hdel(keys.tokens, ...digests)
                .zrem(keys.expiry, ...digests)
                .exec();
        }),
      );
    },
  };
}
