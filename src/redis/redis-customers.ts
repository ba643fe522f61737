/**
 * A customer's record on Redis: the customer as JSON (wallets without their
 * balances) and its wallets' balances and currencies in a hash, both under
 * the customer's hash tag, plus its static tokens in the index across
 * customers (`{idx}`), kept as SHA-256 digests only.
 */
import * as nodeCrypto from "node:crypto";
import type { Customer, Wallet } from "../domain/model.ts";
import type { RedisClient } from "./redis-client.ts";
import { customerKeys, sharedKeys, walletField } from "./redis-keys.ts";

export type StoredCustomer = Omit<Customer, "wallets"> & {
  readonly wallets: readonly { readonly shortcode: string | null; readonly currency: string }[];
};

export const digestOf = (token: string): string => nodeCrypto.createHash("sha256").update(token, "utf8").digest("hex");

/**
 * @example
 * const { readCustomer } = customerRecords(redis, "ah:");
 * await readCustomer("cus_1"); // the customer with its balances, or undefined
 */
export function customerRecords(redis: RedisClient, prefix: string) {
  const shared = sharedKeys(prefix);
  const keysOf = (customerId: string) => customerKeys(prefix, customerId);

  function compose(json: string | null, balances: Record<string, string>): Customer | undefined {
    if (json === null) return undefined;
    const stored = JSON.parse(json) as StoredCustomer;
    const wallets: Wallet[] = stored.wallets.map(({ shortcode }) => ({
      shortcode,
      balanceCents: Number(balances[`b:${walletField(shortcode)}`] ?? 0),
      currency: balances[`c:${walletField(shortcode)}`] ?? "KES",
    }));
    return { ...stored, wallets };
  }

  async function readCustomer(id: string): Promise<Customer | undefined> {
    const keys = keysOf(id);
    const [json, balances] = await Promise.all([redis.get(keys.customer), redis.hgetall(keys.wallets)]);
    return compose(json, balances);
  }

  async function writeCustomer(customer: Customer, previous: Customer | undefined, withBalances: boolean) {
    const keys = keysOf(customer.id);
    const stored: StoredCustomer = {
      ...customer,
      wallets: customer.wallets.map(({ shortcode, currency }) => ({ shortcode, currency })),
    };
    // The customer's own keys in one MULTI; the index across customers (another slot) apart.
    const batch = redis.multi().set(keys.customer, JSON.stringify(stored));
    if (withBalances) {
      batch.del(keys.wallets);
      for (const wallet of customer.wallets) {
        batch.hset(keys.wallets, `b:${walletField(wallet.shortcode)}`, wallet.balanceCents);
        batch.hset(keys.wallets, `c:${walletField(wallet.shortcode)}`, wallet.currency);
      }
    }
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
