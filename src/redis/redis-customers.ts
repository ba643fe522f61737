/**
 * A customer's record on Redis: one hash under the customer's hash tag, the
 * customer as JSON (wallets without their balances) in one field and each
 * wallet's balance and currency in fields of their own, plus its static tokens in the index across
 * customers (`{idx}`), kept as SHA-256 digests only.
 */
import * as nodeCrypto from "node:crypto";
import type { Customer, Wallet } from "../domain/model.ts";
import type { RedisClient } from "./redis-client.ts";
import { CUSTOMER_RECORD, customerKeys, sharedKeys, walletField } from "./redis-keys.ts";

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
