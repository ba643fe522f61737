/**
 * The Store on Redis: any number of simulator processes on one Redis share
 * customers, balances, orders, idempotency keys and issued tokens. Each
 * atomic method of the port is one Lua script on one customer's keys; the
 * indexes across customers written on every order
 * or token are split into shards (`order-index.ts`, `issued-tokens.ts`), so
 * on Redis Cluster no one slot takes a share of every order. Records are
 * JSON, so every read is a fresh copy and nothing a caller holds can change
 * stored state.
 *
 * One component, as the memory store is: the store and its token hints,
 * then its customers, its orders, and the Lua scripts of their atomic
 * steps.
 */
import { type RedisClient, unlinkMatching } from "./redis-client.ts";
import type { Customer, Wallet, EvictedOrder, IdempotencyRecord, Order } from "../domain/model.ts";
import type { Store, OrderPage, OrderPageQuery, PlaceResult } from "../domain/ports.ts";
import { createIssuedTokens, type IssuedTokens } from "./issued-tokens.ts";
import { createOrderIndex, type OrderIndex } from "./order-index.ts";
import {
  CUSTOMER_RECORD,
  customerKeys,
  sharedKeys,
  walletField,
  bookField,
  type CustomerKeys,
  type SharedKeys,
} from "./redis-keys.ts";
import { luaScript, type LuaScript } from "./lua-script.ts";
import { redisStoreSettings, type RedisStoreOptions } from "./redis-settings.ts";
import * as nodeCrypto from "node:crypto";
import { byCreation } from "../domain/order-page.ts";
import { candidateOf, evictedRecordOf } from "../domain/order-retention.ts";
import { type PageVerdict, readSequencePage } from "./sequence-page.ts";

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

/** Tokens remembered at most; the oldest are forgotten first. */
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
  const { prefix, shards } = redisStoreSettings(options);
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

// The customers. A customer's record is one hash under the customer's hash
// tag: the customer as JSON (wallets without their balances) in one field
// and each wallet's balance and currency in fields of their own; its static
// tokens are in the index across customers (`{idx}`), kept as SHA-256
// digests only.

type StoredCustomer = Omit<Customer, "wallets"> & {
  readonly wallets: readonly { readonly shortcode: string | null; readonly currency: string }[];
};

const digestOf = (token: string): string => nodeCrypto.createHash("sha256").update(token, "utf8").digest("hex");

/**
 * @example
 * const { readCustomer } = customerRecords(redis, "ah:");
 * await readCustomer("cus_1"); // the customer with its balances, or undefined
 */
function customerRecords(redis: RedisClient, prefix: string) {
  const shared = sharedKeys(prefix);
  const keysOf = (customerId: string) => customerKeys(prefix, customerId);

  function compose(fields: Record<string, string>): Customer | undefined {
    const json = fields[CUSTOMER_RECORD];
    if (json === undefined) return undefined;
    const stored = JSON.parse(json) as StoredCustomer;
    const wallets: Wallet[] = stored.wallets.map(({ shortcode }) => ({
      shortcode,
      balanceCents: Number(fields[`b:${walletField(shortcode)}`] ?? 0),
      currency: fields[`c:${walletField(shortcode)}`] ?? "KES",
    }));
    return { ...stored, wallets };
  }

  async function readCustomer(id: string): Promise<Customer | undefined> {
    return compose(await redis.hgetall(keysOf(id).customer));
  }

  async function writeCustomer(customer: Customer, previous: Customer | undefined, withBalances: boolean) {
    const keys = keysOf(customer.id);
    const stored: StoredCustomer = {
      ...customer,
      wallets: customer.wallets.map(({ shortcode, currency }) => ({ shortcode, currency })),
    };
    // The customer's own hash in one MULTI, its fields in one HSET; the index across customers
    // (another slot) apart.
    const fields: Record<string, string | number> = { [CUSTOMER_RECORD]: JSON.stringify(stored) };
    const batch = redis.multi();
    if (withBalances) {
      batch.del(keys.customer);
      for (const wallet of customer.wallets) {
        fields[`b:${walletField(wallet.shortcode)}`] = wallet.balanceCents;
        fields[`c:${walletField(wallet.shortcode)}`] = wallet.currency;
      }
    }
    batch.hset(keys.customer, fields);
    await Promise.all([batch.exec(), redis.sadd(shared.customers, customer.id)]);
    await reindexTokens(customer.id, previous?.tokens ?? [], customer.tokens);
  }

  async function reindexTokens(customerId: string, before: readonly string[], after: readonly string[]) {
    for (const token of before) {
      const digest = digestOf(token);
      if ((await redis.hget(shared.tokens, digest)) === customerId) await redis.hdel(shared.tokens, digest);
    }
    for (const token of after) await redis.hset(shared.tokens, digestOf(token), customerId);
  }

  return { readCustomer, writeCustomer };
}

// The orders: placing, changing, reading, listing and evicting them. Each
// atomic step is one script on the customer's keys (the scripts close this
// file); the order's entries in the indexes across customers
// (`order-index.ts`) are written by commands of their own on the order's
// index shard, sent in the same round trip, just before it.

/** What the order methods share with the rest of the store. */
interface OrderContext {
  readonly redis: RedisClient;
  readonly shared: SharedKeys;
  readonly index: OrderIndex;
  keysOf(customerId: string): CustomerKeys;
  run(name: RedisScriptName, ...args: (string | number)[]): Promise<unknown>;
}

type OrderReads = Pick<
  Store,
  | "getOrder"
  | "getOrderByReference"
  | "listOrders"
  | "listOrderPage"
  | "listEvictionCandidates"
  | "countOrders"
  | "countOrdersByStatus"
>;
type OrderWrites = Pick<Store, "placeOrder" | "updateOrderIf">;
type Evictions = Pick<Store, "evictOrder" | "getEvictedOrder" | "getEvictedOrderByReference" | "countEvictedOrders">;

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a safe integer >= 0, got ${cents}`);
}

/** The keys of the placement script, in its order. */
function placementKeys(keys: CustomerKeys): string[] {
  return [keys.customer, keys.book, keys.orderSequence, keys.evicted, keys.evictedUntil, keys.idempotencyExpiry];
}

function matchesPage(order: Order, query: OrderPageQuery): boolean {
  return (
    (query.customerId === undefined || order.customerId === query.customerId) &&
    (query.status === undefined || order.status === query.status) &&
    (query.reference === undefined || order.reference === query.reference) &&
    (query.referencePrefix === undefined || order.reference.startsWith(query.referencePrefix)) &&
    (query.from === undefined || order.createdAt >= query.from) &&
    (query.to === undefined || order.createdAt <= query.to)
  );
}

/** The placement script's reply as the port's result. */
function placeResult(order: Order, reply: [string, string?, string?]): PlaceResult {
  switch (reply[0]) {
    case "placed":
      return { kind: "placed" };
    case "existing":
      return { kind: "existing", record: JSON.parse(reply[1] ?? "{}") as IdempotencyRecord };
    case "duplicate":
      return { kind: "duplicate_reference" };
    case "insufficient":
      return {
        kind: "insufficient",
        wallet: { shortcode: order.shortcode, balanceCents: Number(reply[1]), currency: reply[2] ?? "KES" },
      };
    default:
      return { kind: "unknown_wallet" };
  }
}

function orderWrites({ index, keysOf, run }: OrderContext): OrderWrites {
  return {
    async placeOrder({ order, key, now }) {
      const keys = keysOf(order.customerId);
      await index.ready();
      // The index goes first, in the same round trip, so an order is never stored without its entries.
      const [indexed, reply] = await Promise.all([
        index.add(order.id, order.customerId, order.createdAt),
        run(
          "ahPlaceOrder",
          ...placementKeys(keys),
          walletField(order.shortcode),
          order.amountCents,
          order.reference,
          order.id,
          JSON.stringify(order),
          now,
          key?.key ?? "",
          key === undefined ? "" : JSON.stringify(key),
          key?.expiresAt ?? 0,
        ) as Promise<[string, string?, string?]>,
      ]);
      // A refused order leaves the indexes again; a process killed in between leaves an entry naming no order.
      if (reply[0] !== "placed" && indexed) await index.remove(order.id);
      return placeResult(order, reply);
    },
    async updateOrderIf(order, expectedVersion, refund) {
      const keys = keysOf(order.customerId);
      const args = [order.id, JSON.stringify(order), expectedVersion];
      if (refund === true) {
        assertCents(order.amountCents);
        args.push(walletField(order.shortcode), order.amountCents);
      }
      return (await run("ahUpdateOrder", keys.book, keys.customer, ...args)) === 1;
    },
  };
}

function orderReads({ redis, shared, index, keysOf }: OrderContext): OrderReads {
  /** Every order, read whole. */
  const allOrders = async (): Promise<Order[]> => readOrders(await index.ownersOf(await index.allIds()));
  async function readOrders(pairs: readonly (readonly [customerId: string, id: string])[]): Promise<Order[]> {
    if (pairs.length === 0) return [];
    // Sent together, not as one pipeline: on a cluster the customers' slots lie on several nodes.
    const replies = await Promise.all(
      pairs.map(([customerId, id]) => redis.hget(keysOf(customerId).book, bookField.order(id))),
    );
    return replies.flatMap((json) => (json === null ? [] : [JSON.parse(json) as Order]));
  }
  async function getOrderByReference(customerId: string, reference: string): Promise<Order | undefined> {
    const id = await redis.hget(keysOf(customerId).book, bookField.reference(reference));
    return id === null ? undefined : (await readOrders([[customerId, id]]))[0];
  }
  async function page(query: OrderPageQuery): Promise<OrderPage> {
    const { customerId } = query;
    const verdict = (order: Order): PageVerdict => (matchesPage(order, query) ? "keep" : "skip");
    const found =
      customerId === undefined
        ? await index.page(query, async (ids) => readOrders(await index.ownersOf(ids)), verdict)
        : await readSequencePage(
            redis,
            keysOf(customerId).orderSequence,
            query,
            (ids) => readOrders(ids.map((id) => [customerId, id] as const)),
            verdict,
          );
    return { orders: found.items, nextCursor: found.nextCursor };
  }
  return {
    async getOrder(id, customerId) {
      // An order's customer never changes: found among its orders, it is the order; else the index says whose it is.
      const found = customerId === undefined ? undefined : (await readOrders([[customerId, id]]))[0];
      return found ?? (await readOrders(await index.ownersOf([id])))[0];
    },
    getOrderByReference,
    async listOrders(filter) {
      const customerId = filter?.customerId;
      if (customerId === undefined) return allOrders();
      const ids = await redis.zrange(keysOf(customerId).orderSequence, 0, -1);
      return readOrders(ids.map((id) => [customerId, id] as const));
    },
    async listOrderPage(query) {
      if (query.reference === undefined) return page(query);
      // An exact reference names at most one order per customer: no scan.
      const customerIds = query.customerId === undefined ? await redis.smembers(shared.customers) : [query.customerId];
      const found: Order[] = [];
      for (const customerId of customerIds) {
        const order = await getOrderByReference(customerId, query.reference);
        if (order !== undefined && matchesPage(order, query)) found.push(order);
      }
      found.sort(byCreation(query));
      return { orders: found.slice(0, query.limit), nextCursor: null };
    },
    async listEvictionCandidates(query) {
      const { orders, nextCursor } = await page(query);
      return { candidates: orders.map(candidateOf), nextCursor };
    },
    countOrders: () => index.count(),
    async countOrdersByStatus() {
      // The orders are read whole: no per-status index is kept, as every status change would have to move one.
      const counts = new Map<number, number>();
      for (const order of await allOrders()) {
        counts.set(order.status, (counts.get(order.status) ?? 0) + 1);
      }
      return counts;
    },
  };
}

function evictions(context: OrderContext, getOrder: Store["getOrder"]): Evictions {
  const { redis, shared, index, keysOf, run } = context;
  async function keptEvicted(customerId: string, id: string | null, now: number): Promise<EvictedOrder | undefined> {
    if (id === null) return undefined;
    const json = await redis.hget(keysOf(customerId).evicted, id);
    const record = json === null ? undefined : (JSON.parse(json) as EvictedOrder);
    return record !== undefined && record.keptUntil > now ? record : undefined;
  }
  /** Forgets evicted records whose time has passed, a bounded batch at a time. */
  async function sweepEvicted(now: number): Promise<void> {
    const ended = await redis.zrangebyscore(shared.evicted, "-inf", now, "LIMIT", 0, 100);
    for (const member of ended) {
      const [customerId = "", id = ""] = member.split("\u0000");
      const keys = keysOf(customerId);
      const record = await redis.hget(keys.evicted, id);
      const batch = redis.multi().hdel(keys.evicted, id).hdel(keys.evictedUntil, id);
      if (record !== null) {
        const { reference } = JSON.parse(record) as EvictedOrder;
        const field = bookField.reference(reference);
        if ((await redis.hget(keys.book, field)) === id) batch.hdel(keys.book, field);
      }
      await batch.exec();
      await index.forgetOwner(id);
      await redis.zrem(shared.evicted, member);
    }
  }
  return {
    async evictOrder(id, expectedVersion, keepUntil, now) {
      const order = await getOrder(id);
      if (order === undefined) return false;
      const keys = keysOf(order.customerId);
      const record = evictedRecordOf(order, keepUntil);
      const removed = await run(
        "ahEvictOrder",
        keys.book,
        keys.orderSequence,
        keys.evicted,
        keys.evictedUntil,
        id,
        expectedVersion,
        keepUntil,
        now,
        order.reference,
        JSON.stringify(record),
      );
      if (removed !== 1) return false;
      await index.unlist(id);
      if (keepUntil > now) await redis.zadd(shared.evicted, keepUntil, `${order.customerId}\u0000${id}`);
      else await index.forgetOwner(id);
      await sweepEvicted(now);
      return true;
    },
    async getEvictedOrder(id, now) {
      const [pair] = await index.ownersOf([id]);
      return pair === undefined ? undefined : keptEvicted(pair[0], id, now);
    },
    async getEvictedOrderByReference(customerId, reference, now) {
      const id = await redis.hget(keysOf(customerId).book, bookField.reference(reference));
      return keptEvicted(customerId, id, now);
    },
    async countEvictedOrders(now) {
      await sweepEvicted(now);
      return redis.zcount(shared.evicted, `(${now}`, "+inf");
    },
  };
}

// The Lua scripts behind the store's atomic steps. Redis runs a script
// alone, so each check and its write happen with nothing in between: the
// atomicity the Store port promises, without locks. Each script touches the
// keys of one customer's hash slot only; the indexes across customers have
// their scripts beside them (`order-index.ts`, `issued-tokens.ts`).

/**
 * Sets a wallet's balance, adding the wallet when absent. KEYS: customer
 * (its record and its wallets' fields). ARGV: shortcode field, cents, currency ('' keeps it, KES for a new
 * wallet). Returns {kind, balance, currency, added}. Debits and refunds are
 * steps of their own scripts (placing an order, a compare-and-set with a
 * refund), never a wallet change alone.
 */
const WALLET = `
local field = 'b:' .. ARGV[1]
local currencyField = 'c:' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'record') == 0 then return {'unknown_customer'} end
local stored = redis.call('HGET', KEYS[1], field)
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], currencyField, ARGV[3])
elseif not stored then redis.call('HSET', KEYS[1], currencyField, 'KES') end
return {'set', tonumber(ARGV[2]), redis.call('HGET', KEYS[1], currencyField), stored and 0 or 1}
`;

/**
 * Compare-and-set of an order on its version. KEYS: book, customer. ARGV:
 * id, order JSON, expected version, then, for a refund, the wallet field
 * and the cents to credit back (in the same step, so no kill between the
 * two can lose the refund; a wallet gone meanwhile is left alone). The
 * version is the stored order's history length. Returns 1 when stored.
 */
const UPDATE_ORDER = `
local field = 'o:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored or #cjson.decode(stored).history ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[4] and redis.call('HEXISTS', KEYS[2], 'b:' .. ARGV[4]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'b:' .. ARGV[4], tonumber(ARGV[5]))
end
return 1
`;

/**
 * Removes an order still at the expected version. KEYS: book,
 * orderSequence, evicted, evictedUntil. ARGV: id, expected version, keep
 * until, now, reference, evicted record JSON. Returns 1 when removed.
 */
const EVICT_ORDER = `
local field = 'o:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored or #cjson.decode(stored).history ~= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], field)
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(ARGV[3]) > tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
elseif redis.call('HGET', KEYS[1], 'r:' .. ARGV[5]) == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'r:' .. ARGV[5])
end
return 1
`;

/**
 * The whole placement of an order. KEYS: customer, book, orderSequence,
 * evicted, evictedUntil, idempotencyExpiry. ARGV: wallet
 * field, cents, reference, id, order JSON, now, idempotency key ('' for
 * none), key record JSON, key expiry. Returns {'placed'}, {'existing',
 * record JSON}, {'duplicate'}, {'insufficient', balance, currency} or
 * {'unknown_wallet'}.
 *
 * The key, the reference and the customer's order counter are read with
 * one HMGET of the book, and the order, its reference, its key and the
 * counter written with one HSET. A wallet's
 * fields exist only beside the customer's record (written in one MULTI,
 * never removed apart), so the wallet's read answers for both. Expired keys are swept on
 * one placement in 16 of the customer's (by its sequence), up to 32 at a
 * time: twice the rate keys are added, at one read every 16 orders instead
 * of one every order. A key past its expiry is never answered, swept or not.
 */
const PLACE_ORDER = `
local now = tonumber(ARGV[6])
local keyField, referenceField, orderField = 'k:' .. ARGV[7], 'r:' .. ARGV[3], 'o:' .. ARGV[4]
local found = redis.call('HMGET', KEYS[2], keyField, referenceField, 'n')
local current, holder = found[1], found[2]
if ARGV[7] ~= '' and current and tonumber(cjson.decode(current).expiresAt) > now then
  return {'existing', current}
end
if holder then
  if redis.call('HEXISTS', KEYS[2], 'o:' .. holder) == 1 then return {'duplicate'} end
  local kept = redis.call('HGET', KEYS[5], holder)
  if kept and tonumber(kept) > now then return {'duplicate'} end
end
local field = 'b:' .. ARGV[1]
local wallet = redis.call('HMGET', KEYS[1], field, 'c:' .. ARGV[1])
local stored, currency = wallet[1], wallet[2]
if not stored then return {'unknown_wallet'} end
if tonumber(stored) < tonumber(ARGV[2]) then return {'insufficient', stored, currency} end
redis.call('HINCRBY', KEYS[1], field, -tonumber(ARGV[2]))
if holder then
  redis.call('HDEL', KEYS[4], holder)
  redis.call('HDEL', KEYS[5], holder)
end
local sequence = (tonumber(found[3]) or 0) + 1
redis.call('ZADD', KEYS[3], sequence, ARGV[4])
if ARGV[7] == '' then
  redis.call('HSET', KEYS[2], referenceField, ARGV[4], orderField, ARGV[5], 'n', sequence)
else
  redis.call('HSET', KEYS[2], referenceField, ARGV[4], orderField, ARGV[5], 'n', sequence, keyField, ARGV[8])
  redis.call('ZADD', KEYS[6], ARGV[9], ARGV[7])
end
if sequence % 16 == 0 then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, 32)
  if #expired > 0 then
    local fields = {}
    for i, key in ipairs(expired) do fields[i] = 'k:' .. key end
    redis.call('HDEL', KEYS[2], unpack(fields))
    redis.call('ZREM', KEYS[6], unpack(expired))
  end
end
return {'placed'}
`;

/** Every script: its name (the client command it becomes), its key count and its source. */
const REDIS_SCRIPTS = {
  ahWallet: { numberOfKeys: 1, lua: WALLET },
  ahUpdateOrder: { numberOfKeys: 2, lua: UPDATE_ORDER },
  ahEvictOrder: { numberOfKeys: 4, lua: EVICT_ORDER },
  ahPlaceOrder: { numberOfKeys: 6, lua: PLACE_ORDER },
} as const;

type RedisScriptName = keyof typeof REDIS_SCRIPTS;
