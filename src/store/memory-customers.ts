/**
 * The memory store's customers and wallets, with the two token indexes that
 * lead to them (static tokens and issued ones). Lifted out of the store's
 * factory as plain functions over one explicit {@link CustomerTables}, so
 * the store reads as its operations and each function here stays one idea;
 * a call costs what it did inside the closure (no object or closure is made
 * per call).
 */
import * as nodeCrypto from "node:crypto";
import type { Customer, IssuedToken, Wallet } from "../domain/model.ts";
import type { CustomerPatch, DebitResult } from "../domain/ports.ts";
import { freezeCopy } from "./freeze-copy.ts";
import { dropExpiredFront, type Swept, sweepDue } from "./sweep-due.ts";

interface TokenEntry {
  readonly digest: Buffer;
  readonly customerId: string;
}

interface IssuedEntry extends TokenEntry {
  readonly expiresAt: number;
}

/** An issued token as `--state-file` saves it: the digest the store holds, never the token itself. */
export interface SavedIssuedToken {
  readonly digest: string;
  readonly customerId: string;
  readonly expiresAt: number;
}

/** What the store holds of its customers; `sweptAt` is the issued tokens' last sweep. */
export interface CustomerTables extends Swept {
  readonly customers: Map<string, Customer>;
  /** Static tokens: digest (hex) → customer. */
  readonly tokens: Map<string, TokenEntry>;
  /** Issued tokens: digest (hex) → customer and expiry; insertion order is expiry order. */
  readonly issued: Map<string, IssuedEntry>;
}

const { createHash, timingSafeEqual } = nodeCrypto;

/** SHA-256 in one call where Node has `crypto.hash` (20.12+): half the cost of a Hash object per request. */
const digestOf: (token: string) => Buffer =
  typeof nodeCrypto.hash === "function"
    ? (token) => nodeCrypto.hash("sha256", token, "buffer")
    : (token) => createHash("sha256").update(token, "utf8").digest();

/**
 * Tokens are found by the SHA-256 digest of what the caller sent: the map
 * lookup then depends only on a digest an attacker cannot steer byte by
 * byte, and the final check compares digests with `timingSafeEqual`.
 */
function matchToken<E extends TokenEntry>(index: ReadonlyMap<string, E>, token: string): E | undefined {
  const digest = digestOf(token);
  const entry = index.get(digest.toString("hex"));
  if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return undefined;
  return entry;
}

export function createCustomerTables(): CustomerTables {
  return { customers: new Map(), tokens: new Map(), issued: new Map(), sweptAt: -Infinity };
}

/** The customer with other wallets, frozen; built field by field, as a spread of a frozen record is slow. */
function withWallets(customer: Customer, wallets: readonly Wallet[]): Customer {
  const updated: { -readonly [K in keyof Customer]: Customer[K] } = {
    id: customer.id,
    name: customer.name,
    tokens: customer.tokens,
    apiKey: customer.apiKey,
    wallets,
  };
  if (customer.webhook !== undefined) updated.webhook = customer.webhook;
  return Object.freeze(updated);
}

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a safe integer >= 0, got ${cents}`);
}

function indexTokens(tables: CustomerTables, customer: Customer): void {
  for (const token of customer.tokens) {
    const digest = digestOf(token);
    tables.tokens.set(digest.toString("hex"), { digest, customerId: customer.id });
  }
}

function unindexTokens(tables: CustomerTables, customer: Customer): void {
  for (const token of customer.tokens) {
    const hex = digestOf(token).toString("hex");
    if (tables.tokens.get(hex)?.customerId === customer.id) tables.tokens.delete(hex);
  }
}

/** Keeps a frozen copy of `customer` (replacing the one with its id) and indexes its tokens. */
export function putCustomer(tables: CustomerTables, customer: Customer): void {
  const previous = tables.customers.get(customer.id);
  if (previous !== undefined) unindexTokens(tables, previous);
  const stored = freezeCopy(customer);
  tables.customers.set(stored.id, stored);
  indexTokens(tables, stored);
}

export function findCustomerByToken(tables: CustomerTables, token: string): Customer | undefined {
  const entry = matchToken(tables.tokens, token);
  return entry === undefined ? undefined : tables.customers.get(entry.customerId);
}

/** Changes a customer's own fields, never its wallets; undefined for an unknown customer. */
export function patchCustomer(tables: CustomerTables, id: string, patch: CustomerPatch): Customer | undefined {
  const customer = tables.customers.get(id);
  if (customer === undefined) return undefined;
  const copy = freezeCopy(patch);
  const { webhook: previousWebhook, ...rest } = customer;
  const webhook = copy.webhook === undefined ? previousWebhook : (copy.webhook ?? undefined);
  const updated: Customer = {
    ...rest,
    name: copy.name ?? customer.name,
    tokens: copy.tokens ?? customer.tokens,
    apiKey: copy.apiKey ?? customer.apiKey,
    ...(webhook === undefined ? {} : { webhook }),
  };
  unindexTokens(tables, customer);
  const stored = Object.freeze(updated);
  tables.customers.set(id, stored);
  indexTokens(tables, stored);
  return stored;
}

/**
 * Replaces one wallet of a stored customer with a new balance (and
 * currency); the caller has checked it exists. Built field by field: this
 * runs for every order, and a spread of a frozen record takes V8's slow
 * cloning path.
 */
function replaceWallet(
  tables: CustomerTables,
  customer: Customer,
  index: number,
  balanceCents: number,
  currency: string,
): Wallet {
  const wallet = customer.wallets[index] as Wallet;
  const frozenWallet: Wallet = Object.freeze({ shortcode: wallet.shortcode, balanceCents, currency });
  const wallets = customer.wallets.slice();
  wallets[index] = frozenWallet;
  tables.customers.set(customer.id, withWallets(customer, Object.freeze(wallets)));
  return frozenWallet;
}

/** Sets a wallet's balance, adding the wallet when absent; undefined for an unknown customer. */
export function setWalletBalance(
  tables: CustomerTables,
  customerId: string,
  shortcode: string | null,
  cents: number,
  currency: string | undefined,
): Wallet | undefined {
  assertCents(cents);
  const customer = tables.customers.get(customerId);
  if (customer === undefined) return undefined;
  const index = customer.wallets.findIndex((wallet) => wallet.shortcode === shortcode);
  const existing = customer.wallets[index];
  if (existing !== undefined) return replaceWallet(tables, customer, index, cents, currency ?? existing.currency);
  const wallet = Object.freeze({ shortcode, balanceCents: cents, currency: currency ?? "KES" });
  tables.customers.set(customer.id, withWallets(customer, Object.freeze([...customer.wallets, wallet])));
  return wallet;
}

/** Subtracts (`sign` -1, refusing an overdraft) or adds (`sign` 1) `cents`. */
export function changeBalance(
  tables: CustomerTables,
  customerId: string,
  shortcode: string | null,
  cents: number,
  sign: 1 | -1,
): DebitResult {
  assertCents(cents);
  const customer = tables.customers.get(customerId);
  const index = customer?.wallets.findIndex((wallet) => wallet.shortcode === shortcode) ?? -1;
  const wallet = customer?.wallets[index];
  if (customer === undefined || wallet === undefined) return { kind: "unknown_wallet" };
  if (sign < 0 && wallet.balanceCents < cents) return { kind: "insufficient", wallet };
  const balance = wallet.balanceCents + sign * cents;
  return { kind: "debited", wallet: replaceWallet(tables, customer, index, balance, wallet.currency) };
}

const expiresAtOf = (entry: IssuedEntry): number => entry.expiresAt;

/** Drops expired tokens from the front; with one token lifetime, insertion order is expiry order. */
function sweepExpiredTokens(tables: CustomerTables, now: number): void {
  if (sweepDue(tables, now)) dropExpiredFront(tables.issued, now, expiresAtOf);
}

export function putIssuedToken(tables: CustomerTables, token: IssuedToken): void {
  sweepExpiredTokens(tables, token.issuedAt);
  const digest = digestOf(token.token);
  tables.issued.set(digest.toString("hex"), { digest, customerId: token.customerId, expiresAt: token.expiresAt });
}

export function findCustomerByIssuedToken(tables: CustomerTables, token: string, now: number): Customer | undefined {
  const entry = matchToken(tables.issued, token);
  if (entry === undefined) return undefined;
  if (entry.expiresAt <= now) {
    tables.issued.delete(entry.digest.toString("hex"));
    return undefined;
  }
  return tables.customers.get(entry.customerId);
}

/** Forgets the tokens issued to one customer; the customer and its static tokens stay. */
export function forgetIssuedTokens(tables: CustomerTables, customerId: string): void {
  for (const [hex, entry] of tables.issued) if (entry.customerId === customerId) tables.issued.delete(hex);
}

export function clearCustomers(tables: CustomerTables): void {
  tables.customers.clear();
  tables.tokens.clear();
  tables.issued.clear();
}

export function savedIssuedTokens(tables: CustomerTables): SavedIssuedToken[] {
  return [...tables.issued.values()].map((entry) => ({
    digest: entry.digest.toString("hex"),
    customerId: entry.customerId,
    expiresAt: entry.expiresAt,
  }));
}

/** Loads saved customers and issued tokens into emptied tables. */
export function loadCustomers(
  tables: CustomerTables,
  customers: readonly Customer[],
  issuedTokens: readonly SavedIssuedToken[],
): void {
  for (const customer of customers) {
    const stored = freezeCopy(customer);
    tables.customers.set(stored.id, stored);
    indexTokens(tables, stored);
  }
  for (const entry of issuedTokens) {
    tables.issued.set(entry.digest, { ...entry, digest: Buffer.from(entry.digest, "hex") });
  }
}
