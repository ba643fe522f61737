/**
 * The Store on Redis: any number of simulator processes on one Redis share
 * customers, balances, orders, idempotency keys and issued tokens. Each
 * atomic method of the port is one Lua script on one customer's keys (see
 * `redis-scripts.ts`); an order's entries in the indexes across customers
 * (`redis-keys.ts`) are written by a script of their own sent in the same
 * round trip, just before it. Records are JSON, so every read is a fresh
 * copy and nothing a caller holds can change stored state.
 */
import { type RedisClient, unlinkMatching } from "./redis-client.ts";
import type { Customer, EvictedOrder, IdempotencyRecord, Order } from "../domain/model.ts";
import type { OrderPage, OrderPageQuery, Store } from "../domain/ports.ts";
import { evictedRecordOf } from "../domain/order-retention.ts";
import { customerRecords, digestOf, type StoredCustomer } from "./redis-customers.ts";
import { type CustomerKeys, customerKeys, sharedKeys, walletField } from "./redis-keys.ts";
import { type LuaScript, luaScript } from "./lua-script.ts";
import { REDIS_SCRIPTS, type RedisScriptName } from "./redis-scripts.ts";
import { readSequencePage } from "./sequence-page.ts";
import { createTokenHints } from "./token-hints.ts";

export interface RedisStoreOptions {
  /** Prefix of every key (default `ah:`): several simulators can share one database under different prefixes. */
  readonly prefix?: string;
}

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a safe integer >= 0, got ${cents}`);
}

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
  const shared = sharedKeys(prefix);
  const keysOf = (customerId: string): CustomerKeys => customerKeys(prefix, customerId);
  const scripts = Object.fromEntries(
    Object.entries(REDIS_SCRIPTS).map(([name, { lua, numberOfKeys }]) => [name, luaScript(redis, lua, numberOfKeys)]),
  ) as Record<RedisScriptName, LuaScript>;
  const run = (name: RedisScriptName, ...args: (string | number)[]): Promise<unknown> => scripts[name](...args);
  const { readCustomer, writeCustomer } = customerRecords(redis, prefix);
  const staticTokenOwners = createTokenHints();
  const issuedTokenOwners = createTokenHints();

  /**
   * Stores an order (`write`: the customer's own script) with its entries in
   * the indexes across customers, in one round trip: the index script goes
   * first, so an order is never stored without them. An order the script
   * refused is taken out of the indexes again (a process killed in between
   * leaves an index entry naming no order, which every reader skips).
   */
  async function storeIndexed<T>(order: Order, write: () => Promise<T>, stored: (reply: T) => boolean): Promise<T> {
    const [indexed, reply] = await Promise.all([
      run("ahIndexOrder", shared.owners, shared.orders, shared.sequence, order.id, order.customerId),
      write(),
    ]);
    if (!stored(reply) && indexed === 1) {
      await redis.multi().hdel(shared.owners, order.id).zrem(shared.orders, order.id).exec();
    }
    return reply;
  }

  async function readOrders(pairs: readonly (readonly [customerId: string, id: string])[]): Promise<Order[]> {
    if (pairs.length === 0) return [];
    // Sent together, not as one pipeline: on a cluster the customers' slots lie on several nodes.
    const replies = await Promise.all(pairs.map(([customerId, id]) => redis.hget(keysOf(customerId).orders, id)));
    return replies.flatMap((json) => (json === null ? [] : [JSON.parse(json) as Order]));
  }

  async function ownersOf(ids: readonly string[]): Promise<(readonly [string, string])[]> {
    if (ids.length === 0) return [];
    const owners = await redis.hmget(shared.owners, ...ids);
    const pairs: (readonly [string, string])[] = [];
    ids.forEach((id, index) => {
      const owner = owners[index];
      if (owner !== null && owner !== undefined) pairs.push([owner, id]);
    });
    return pairs;
  }

  async function ordersOf(customerId: string | undefined): Promise<Order[]> {
    if (customerId !== undefined) {
      const ids = await redis.zrange(keysOf(customerId).orderSequence, 0, -1);
      return readOrders(ids.map((id) => [customerId, id] as const));
    }
    return readOrders(await ownersOf(await redis.zrange(shared.orders, 0, -1)));
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
        if ((await redis.hget(keys.references, reference)) === id) batch.hdel(keys.references, reference);
      }
      await batch.exec();
      await redis.multi().hdel(shared.owners, id).zrem(shared.evicted, member).exec();
    }
  }

  async function keptEvicted(customerId: string, id: string | null, now: number): Promise<EvictedOrder | undefined> {
    if (id === null) return undefined;
    const json = await redis.hget(keysOf(customerId).evicted, id);
    const record = json === null ? undefined : (JSON.parse(json) as EvictedOrder);
    return record !== undefined && record.keptUntil > now ? record : undefined;
  }

  async function removeCustomerData(customerId: string): Promise<void> {
    const keys = keysOf(customerId);
    const ids = await redis.zrange(keys.orderSequence, 0, -1);
    const evictedIds = await redis.hkeys(keys.evicted);
    const batch = redis.multi();
    if (ids.length > 0) batch.zrem(shared.orders, ...ids);
    if (ids.length + evictedIds.length > 0) batch.hdel(shared.owners, ...ids, ...evictedIds);
    if (evictedIds.length > 0) batch.zrem(shared.evicted, ...evictedIds.map((id) => `${customerId}\u0000${id}`));
    await batch.exec();
    await redis.del(
      keys.references,
      keys.orders,
      keys.versions,
      keys.orderSequence,
      keys.orderCounter,
      keys.evicted,
      keys.evictedUntil,
      keys.idempotency,
      keys.idempotencyExpiry,
    );
    const issued = await redis.hgetall(shared.issued);
    for (const [digest, json] of Object.entries(issued)) {
      if ((JSON.parse(json) as { customerId: string }).customerId === customerId) {
        await redis.multi().hdel(shared.issued, digest).zrem(shared.issuedExpiry, digest).exec();
      }
    }
  }

  async function page(query: OrderPageQuery): Promise<OrderPage> {
    const source = query.customerId === undefined ? shared.orders : keysOf(query.customerId).orderSequence;
    const load = async (ids: readonly string[]) =>
      readOrders(
        query.customerId === undefined
          ? await ownersOf(ids)
          : ids.map((id) => [query.customerId as string, id] as const),
      );
    const found = await readSequencePage(redis, source, query, load, (order) =>
      matchesPage(order, query) ? "keep" : "skip",
    );
    return { orders: found.items, nextCursor: found.nextCursor };
  }

  async function getOrder(id: string, customerId?: string): Promise<Order | undefined> {
    // An order's customer never changes: found among its orders, it is the order; else the index says whose it is.
    const found = customerId === undefined ? undefined : (await readOrders([[customerId, id]]))[0];
    return found ?? (await readOrders(await ownersOf([id])))[0];
  }

  async function getOrderByReference(customerId: string, reference: string): Promise<Order | undefined> {
    const id = await redis.hget(keysOf(customerId).references, reference);
    return id === null ? undefined : (await readOrders([[customerId, id]]))[0];
  }

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
      const reply = (await run("ahWallet", keys.customer, keys.wallets, field, cents, currency ?? "")) as [
        string,
        number?,
        string?,
        number?,
      ];
      if (reply[0] !== "set") return undefined;
      if (reply[3] === 1) {
        // A new wallet: the customer record lists it, in the order wallets were added.
        const json = await redis.get(keys.customer);
        if (json !== null) {
          const stored = JSON.parse(json) as StoredCustomer;
          const wallets = [...stored.wallets, { shortcode, currency: reply[2] ?? "KES" }];
          await redis.set(keys.customer, JSON.stringify({ ...stored, wallets }));
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

    async placeOrder({ order, key, now }) {
      const keys = keysOf(order.customerId);
      const place = async () =>
        (await run(
          "ahPlaceOrder",
          keys.wallets,
          keys.customer,
          ...orderKeys(keys),
          keys.idempotency,
          keys.idempotencyExpiry,
          keys.orderCounter,
          walletField(order.shortcode),
          order.amountCents,
          order.reference,
          order.id,
          JSON.stringify(order),
          order.history.length,
          now,
          key?.key ?? "",
          key === undefined ? "" : JSON.stringify(key),
          key?.expiresAt ?? 0,
        )) as [string, string?, string?];
      const reply = await storeIndexed(order, place, ([kind]) => kind === "placed");
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
    },
    async updateOrderIf(order, expectedVersion, refund) {
      const keys = keysOf(order.customerId);
      const args = [order.id, JSON.stringify(order), expectedVersion, order.history.length];
      if (refund === true) {
        assertCents(order.amountCents);
        args.push(walletField(order.shortcode), order.amountCents);
      }
      return (await run("ahUpdateOrder", keys.orders, keys.versions, keys.wallets, ...args)) === 1;
    },
    getOrder,
    getOrderByReference,
    async listOrders(filter) {
      return ordersOf(filter?.customerId);
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
      found.sort((a, b) => a.createdAt - b.createdAt);
      return { orders: found.slice(0, query.limit), nextCursor: null };
    },
    async countOrders() {
      return redis.zcard(shared.orders);
    },
    async evictOrder(id, expectedVersion, keepUntil, now) {
      const order = await getOrder(id);
      if (order === undefined) return false;
      const keys = keysOf(order.customerId);
      const record = evictedRecordOf(order, keepUntil);
      const removed = await run(
        "ahEvictOrder",
        keys.orders,
        keys.versions,
        keys.references,
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
      const batch = redis.multi().zrem(shared.orders, id);
      if (keepUntil > now) batch.zadd(shared.evicted, keepUntil, `${order.customerId}\u0000${id}`);
      else batch.hdel(shared.owners, id);
      await batch.exec();
      await sweepEvicted(now);
      return true;
    },
    async getEvictedOrder(id, now) {
      const [pair] = await ownersOf([id]);
      return pair === undefined ? undefined : keptEvicted(pair[0], id, now);
    },
    async getEvictedOrderByReference(customerId, reference, now) {
      return keptEvicted(customerId, await redis.hget(keysOf(customerId).references, reference), now);
    },
    async countEvictedOrders(now) {
      await sweepEvicted(now);
      return redis.zcount(shared.evicted, `(${now}`, "+inf");
    },

    async putIssuedToken(token) {
      const digest = digestOf(token.token);
      const json = JSON.stringify({ customerId: token.customerId, expiresAt: token.expiresAt });
      await run("ahPutIssued", shared.issued, shared.issuedExpiry, digest, json, token.expiresAt, token.issuedAt);
    },
    async countIssuedTokens() {
      return redis.hlen(shared.issued);
    },
    async findCustomerByIssuedToken(token, now) {
      const digest = digestOf(token);
      const hinted = issuedTokenOwners.get(digest);
      // With a hint, the entry and the customer are read in one round trip; the entry decides.
      const [json, customer] = await Promise.all([
        redis.hget(shared.issued, digest),
        hinted === undefined ? undefined : readCustomer(hinted),
      ]);
      const entry = json === null ? undefined : (JSON.parse(json) as { customerId: string; expiresAt: number });
      if (entry === undefined || entry.expiresAt <= now) {
        issuedTokenOwners.forget(digest);
        return undefined;
      }
      issuedTokenOwners.remember(digest, entry.customerId);
      return entry.customerId === hinted ? customer : readCustomer(entry.customerId);
    },

    async reset(customerId) {
      if (customerId !== undefined) {
        await removeCustomerData(customerId);
        return;
      }
      await unlinkMatching(redis, `${prefix}*`);
    },
  };
}

/** The keys of the insert and evict scripts, in their order. */
function orderKeys(keys: CustomerKeys): string[] {
  return [keys.references, keys.orders, keys.versions, keys.orderSequence, keys.evicted, keys.evictedUntil];
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
