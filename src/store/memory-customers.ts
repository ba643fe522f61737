/**
 * The memory store's customers and wallets, with the two token indexes that
 * lead to them (static tokens and issued ones): one component, the
 * {@link CustomerBook}, whose maps change together (a customer's tokens are
 * indexed when it is put, and re-indexed when it is patched). The order
 * book in `memory-store.ts` debits and refunds through it.
 */
import * as nodeCrypto from "node:crypto";
import { constantTimeEqual } from "../contract/signing.ts";
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

const { createHash } = nodeCrypto;

/** SHA-256 in one call where Node has `crypto.hash` (20.12+): half the cost of a Hash object per request. */
const digestOf: (token: string) => Buffer =
  typeof nodeCrypto.hash === "function"
    ? (token) => nodeCrypto.hash("sha256", token, "buffer")
    : (token) => createHash("sha256").update(token, "utf8").digest();

/**
 * Tokens are found by the SHA-256 digest of what the caller sent: the map
 * lookup then depends only on a digest an attacker cannot steer byte by
 * byte, and the final check compares digests in constant time.
 */
function matchToken<E extends TokenEntry>(index: ReadonlyMap<string, E>, token: string): E | undefined {
  const digest = digestOf(token);
  const entry = index.get(digest.toString("hex"));
  if (entry === undefined || !constantTimeEqual(entry.digest, digest)) return undefined;
  return entry;
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

const expiresAtOf = (entry: IssuedEntry): number => entry.expiresAt;

/**
 * The customers a memory store holds, their wallets and the token indexes.
 * Every method runs in one synchronous stretch, which is what makes the
 * store's operations atomic.
 */
export class CustomerBook implements Swept {
  readonly customers = new Map<string, Customer>();
  /** Static tokens: digest (hex) → customer. */
  private readonly tokens = new Map<string, TokenEntry>();
  /** Issued tokens: digest (hex) → customer and expiry; insertion order is expiry order. */
  private readonly issued = new Map<string, IssuedEntry>();
  /** When the issued tokens were last swept. */
  sweptAt = -Infinity;

  get issuedCount(): number {
    return this.issued.size;
  }

  private indexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const digest = digestOf(token);
      this.tokens.set(digest.toString("hex"), { digest, customerId: customer.id });
    }
  }

  private unindexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const hex = digestOf(token).toString("hex");
      if (this.tokens.get(hex)?.customerId === customer.id) this.tokens.delete(hex);
    }
  }

  /** Keeps a frozen copy of `customer` (replacing the one with its id) and indexes its tokens. */
  put(customer: Customer): void {
    const previous = this.customers.get(customer.id);
    if (previous !== undefined) this.unindexTokens(previous);
    const stored = freezeCopy(customer);
    this.customers.set(stored.id, stored);
    this.indexTokens(stored);
  }

  findByToken(token: string): Customer | undefined {
    const entry = matchToken(this.tokens, token);
    return entry === undefined ? undefined : this.customers.get(entry.customerId);
  }

  /** Changes a customer's own fields, never its wallets; undefined for an unknown customer. */
  patch(id: string, patch: CustomerPatch): Customer | undefined {
    const customer = this.customers.get(id);
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
    this.unindexTokens(customer);
    const stored = Object.freeze(updated);
    this.customers.set(id, stored);
    this.indexTokens(stored);
    return stored;
  }

  /**
   * Replaces one wallet of a stored customer with a new balance (and
   * currency); the caller has checked it exists. Built field by field: this
   * runs for every order, and a spread of a frozen record takes V8's slow
   * cloning path.
   */
  private replaceWallet(customer: Customer, index: number, balanceCents: number, currency: string): Wallet {
    const wallet = customer.wallets[index] as Wallet;
    const frozenWallet: Wallet = Object.freeze({ shortcode: wallet.shortcode, balanceCents, currency });
    const wallets = customer.wallets.slice();
    wallets[index] = frozenWallet;
    this.customers.set(customer.id, withWallets(customer, Object.freeze(wallets)));
    return frozenWallet;
  }

  /** Sets a wallet's balance, adding the wallet when absent; undefined for an unknown customer. */
  setWalletBalance(
    customerId: string,
    shortcode: string | null,
    cents: number,
    currency: string | undefined,
  ): Wallet | undefined {
    assertCents(cents);
    const customer = this.customers.get(customerId);
    if (customer === undefined) return undefined;
    const index = customer.wallets.findIndex((wallet) => wallet.shortcode === shortcode);
    const existing = customer.wallets[index];
    if (existing !== undefined) return this.replaceWallet(customer, index, cents, currency ?? existing.currency);
    const wallet = Object.freeze({ shortcode, balanceCents: cents, currency: currency ?? "KES" });
    this.customers.set(customer.id, withWallets(customer, Object.freeze([...customer.wallets, wallet])));
    return wallet;
  }

  /** Subtracts (`sign` -1, refusing an overdraft) or adds (`sign` 1) `cents`. */
  changeBalance(customerId: string, shortcode: string | null, cents: number, sign: 1 | -1): DebitResult {
    assertCents(cents);
    const customer = this.customers.get(customerId);
    const index = customer?.wallets.findIndex((wallet) => wallet.shortcode === shortcode) ?? -1;
    const wallet = customer?.wallets[index];
    if (customer === undefined || wallet === undefined) return { kind: "unknown_wallet" };
    if (sign < 0 && wallet.balanceCents < cents) return { kind: "insufficient", wallet };
    const balance = wallet.balanceCents + sign * cents;
    return { kind: "debited", wallet: this.replaceWallet(customer, index, balance, wallet.currency) };
  }

  putIssuedToken(token: IssuedToken): void {
    // With one token lifetime, insertion order is expiry order: expired tokens are dropped from the front.
    if (sweepDue(this, token.issuedAt)) dropExpiredFront(this.issued, token.issuedAt, expiresAtOf);
    const digest = digestOf(token.token);
    this.issued.set(digest.toString("hex"), { digest, customerId: token.customerId, expiresAt: token.expiresAt });
  }

  findByIssuedToken(token: string, now: number): Customer | undefined {
    const entry = matchToken(this.issued, token);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.issued.delete(entry.digest.toString("hex"));
      return undefined;
    }
    return this.customers.get(entry.customerId);
  }

  /** Forgets the tokens issued to one customer; the customer and its static tokens stay. */
  forgetIssuedTokens(customerId: string): void {
    for (const [hex, entry] of this.issued) if (entry.customerId === customerId) this.issued.delete(hex);
  }

  clear(): void {
    this.customers.clear();
    this.tokens.clear();
    this.issued.clear();
  }

  savedIssuedTokens(): SavedIssuedToken[] {
    return [...this.issued.values()].map((entry) => ({
      digest: entry.digest.toString("hex"),
      customerId: entry.customerId,
      expiresAt: entry.expiresAt,
    }));
  }

  /** Loads saved customers and issued tokens into the emptied book. */
  load(customers: readonly Customer[], issuedTokens: readonly SavedIssuedToken[]): void {
    for (const customer of customers) {
      const stored = freezeCopy(customer);
      this.customers.set(stored.id, stored);
      this.indexTokens(stored);
    }
    for (const entry of issuedTokens) {
      this.issued.set(entry.digest, { ...entry, digest: Buffer.from(entry.digest, "hex") });
    }
  }
}
