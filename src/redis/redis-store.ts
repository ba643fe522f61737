/**
 * The Store on Redis: any number of simulator processes on one Redis share
 * customers, balances, orders, idempotency keys and issued tokens. Each
 * atomic method of the port is one Lua script on one customer's keys (see
 * `redis-scripts.ts`); the indexes across customers written on every order
 * or token are split into shards (`order-index.ts`, `issued-tokens.ts`), so
 * on Redis Cluster no one slot takes a share of every order. Records are
 * JSON, so every read is a fresh copy and nothing a caller holds can change
 * stored state.
 */
import { type RedisClient, unlinkMatching } from "./redis-client.ts";
import type { Customer } from "../domain/model.ts";
import type { Store } from "../domain/ports.ts";
import { createIssuedTokens, type IssuedTokens } from "./issued-tokens.ts";
import { DEFAULT_JOB_SHARDS } from "./job-shards.ts";
import { createOrderIndex } from "./order-index.ts";
import { customerRecords, digestOf, type StoredCustomer } from "./redis-customers.ts";
import { CUSTOMER_RECORD, customerKeys, sharedKeys, walletField } from "./redis-keys.ts";
import { luaScript, type LuaScript } from "./lua-script.ts";
import { REDIS_SCRIPTS, type RedisScriptName } from "./redis-scripts.ts";
import { assertCents, evictions, type OrderContext, orderReads, orderWrites } from "./redis-store-orders.ts";

// Which customer a bearer token belonged to the last time this process
// looked, so the next request with it reads that customer at once instead
// of asking the token index first: one round trip instead of two.
//
// A hint is never trusted on its own. The customer's record (for a static
// token: its `tokens`; for an issued token: the issued entry, read in the
// same round trip) decides, and a hint it contradicts is dropped and the
// index asked. Another instance changing or moving a token therefore never
// makes this one accept a token it should refuse, or refuse one it should
// accept.
// /
//
// /** Tokens remembered at most; the oldest are forgotten first.

const MAX_HINTS = 10_000;

export interface TokenHints {
  /** The customer a token digest last belonged to, if remembered. */
  get(digest: string): string | undefined;
  remember(digest: string, customerId: string): void;
  forget(digest: string): void;
}

function createTokenHints(max = MAX_HINTS): TokenHints {
  const owners = new Map<string, string>();
  return {
    get: (digest) => owners.get(digest),
    remember(digest, customerId) {
      owners.delete(digest);
      owners.set(digest, customerId);
      if (owners.size > max) owners.delete(owners.keys().next().value as string);
    },
    forget(digest) {
      owners.delete(digest);
    },
  };
}

export interface RedisStoreOptions {
  /** Prefix of every key (default `ah:`): several simulators can share one database under different prefixes. */
  readonly prefix?: string;
  /**
   * Shards of the indexes across customers (default 16, the job queue's
   * count): every process on the database must use the same number.
   */
  readonly shards?: number;
}

type CustomerMethods = Pick<
  Store,
  "putCustomer" | "getCustomer" | "listCustomers" | "findCustomerByToken" | "setWalletBalance" | "patchCustomer"
>;
type TokenMethods = Pick<Store, "putIssuedToken" | "countIssuedTokens" | "findCustomerByIssuedToken">;
type ReadCustomer = (id: string) => Promise<Customer | undefined>;

/**
 * A Store on an ioredis client the caller connected (and quits).
 *
 * @example
 * const redis = new Redis("redis://127.0.0.1:6379/0");
 * const store = createRedisStore(redis);
 * await store.putCustomer({ id: "cus_1", name: "Shop", tokens: ["t"], apiKey: "k",
 *   wallets: [{ shortcode: null, balanceCents: 10_000, currency: "KES" }] });
 */
export function createRedisStore(redis: RedisClient, options: RedisStoreOptions = {}): Store {
  const prefix = options.prefix ?? "ah:";
  const shards = options.shards ?? DEFAULT_JOB_SHARDS;
  const scripts = Object.fromEntries(
    Object.entries(REDIS_SCRIPTS).map(([name, { lua, numberOfKeys }]) => [name, luaScript(redis, lua, numberOfKeys)]),
  ) as Record<RedisScriptName, LuaScript>;
  const context: OrderContext = {
    redis,
    shared: sharedKeys(prefix),
    index: createOrderIndex(redis, prefix, shards),
    keysOf: (customerId) => customerKeys(prefix, customerId),
    run: (name, ...args) => scripts[name](...args),
  };
  const issued = createIssuedTokens(redis, prefix, shards);
  const reads = orderReads(context);
  return {
    ...customerMethods(context, prefix),
    ...reads,
    ...orderWrites(context),
    ...evictions(context, reads.getOrder),
    ...tokenMethods(issued, customerRecords(redis, prefix).readCustomer),
    async reset(customerId) {
      if (customerId === undefined) return unlinkMatching(redis, `${prefix}*`);
      await removeCustomerData(context, customerId);
      await issued.removeCustomer(customerId);
    },
  };
}

/** Removes one customer's orders, keys and evicted records, and their entries in the indexes. */
async function removeCustomerData({ redis, shared, index, keysOf }: OrderContext, customerId: string): Promise<void> {
  const keys = keysOf(customerId);
  const ids = await redis.zrange(keys.orderSequence, 0, -1);
  const evictedIds = await redis.hkeys(keys.evicted);
  await index.removeCustomer(ids, evictedIds);
  if (evictedIds.length > 0) await redis.zrem(shared.evicted, ...evictedIds.map((id) => `${customerId}\u0000${id}`));
  await redis.del(keys.book, keys.orderSequence, keys.evicted, keys.evictedUntil, keys.idempotencyExpiry);
}

function customerMethods({ redis, shared, keysOf, run }: OrderContext, prefix: string): CustomerMethods {
  const { readCustomer, writeCustomer } = customerRecords(redis, prefix);
  const staticTokenOwners = createTokenHints();
  return {
    async putCustomer(customer) {
      await writeCustomer(customer, await readCustomer(customer.id), true);
    },
    getCustomer: readCustomer,
    async listCustomers() {
      const ids = await redis.smembers(shared.customers);
      const customers = await Promise.all(ids.map((id) => readCustomer(id)));
      return customers.filter((customer): customer is Customer => customer !== undefined);
    },
    async findCustomerByToken(token) {
      const digest = digestOf(token);
      const hinted = staticTokenOwners.get(digest);
      if (hinted !== undefined) {
        // The customer's own record says whether the token is still theirs.
        const customer = await readCustomer(hinted);
        if (customer?.tokens.includes(token) === true) return customer;
        staticTokenOwners.forget(digest);
      }
      const id = await redis.hget(shared.tokens, digest);
      const customer = id === null ? undefined : await readCustomer(id);
      if (id === null || customer?.tokens.includes(token) !== true) return undefined;
      staticTokenOwners.remember(digest, id);
      return customer;
    },
    async setWalletBalance(customerId, shortcode, cents, currency) {
      assertCents(cents);
      const keys = keysOf(customerId);
      const field = walletField(shortcode);
      const reply = (await run("ahWallet", keys.customer, field, cents, currency ?? "")) as [
        string,
        number?,
        string?,
        number?,
      ];
      if (reply[0] !== "set") return undefined;
      if (reply[3] === 1) {
        // A new wallet: the customer record lists it, in the order wallets were added.
        const json = await redis.hget(keys.customer, CUSTOMER_RECORD);
        if (json !== null) {
          const stored = JSON.parse(json) as StoredCustomer;
          const wallets = [...stored.wallets, { shortcode, currency: reply[2] ?? "KES" }];
          await redis.hset(keys.customer, CUSTOMER_RECORD, JSON.stringify({ ...stored, wallets }));
        }
      }
      return { shortcode, balanceCents: cents, currency: reply[2] ?? "KES" };
    },
    async patchCustomer(id, patch) {
      const customer = await readCustomer(id);
      if (customer === undefined) return undefined;
      const { webhook: previousWebhook, ...rest } = customer;
      const webhook = patch.webhook === undefined ? previousWebhook : (patch.webhook ?? undefined);
      const updated: Customer = {
        ...rest,
        name: patch.name ?? customer.name,
        tokens: [...(patch.tokens ?? customer.tokens)],
        apiKey: patch.apiKey ?? customer.apiKey,
        ...(webhook === undefined ? {} : { webhook: structuredClone(webhook) }),
      };
      await writeCustomer(updated, customer, false);
      return readCustomer(id);
    },
  };
}

function tokenMethods(issued: IssuedTokens, readCustomer: ReadCustomer): TokenMethods {
  const issuedTokenOwners = createTokenHints();
  return {
    async putIssuedToken(token) {
      const entry = { customerId: token.customerId, expiresAt: token.expiresAt };
      await issued.put(digestOf(token.token), entry, token.issuedAt);
    },
    countIssuedTokens: () => issued.count(),
    async findCustomerByIssuedToken(token, now) {
      const digest = digestOf(token);
      const hinted = issuedTokenOwners.get(digest);
      // With a hint, the entry and the customer are read in one round trip; the entry decides.
      const [entry, customer] = await Promise.all([
        issued.get(digest),
        hinted === undefined ? undefined : readCustomer(hinted),
      ]);
      if (entry === undefined || entry.expiresAt <= now) {
        issuedTokenOwners.forget(digest);
        return undefined;
      }
      issuedTokenOwners.remember(digest, entry.customerId);
      return entry.customerId === hinted ? customer : readCustomer(entry.customerId);
    },
  };
}
