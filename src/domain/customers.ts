/**
 * The customer directory: create and change customers (tokens, API key,
 * wallets, webhook endpoint) and issue expiring tokens for the provider-like
 * `POST /v1/auth/token`. Every outcome is a union; nothing here throws for
 * bad input.
 */
import { secretsEqual } from "../contract/signing.ts";
import { hasUrlCredentials, WEBHOOK_URL_CREDENTIALS_RULE } from "../contract/webhook-url.ts";
import { randomBase32 } from "./ids.ts";
import type { Customer, Wallet, WebhookEndpoint } from "./model.ts";
import type { Clock, CustomerPatch, Ids, Random, Store } from "./ports.ts";

/** The currency of a wallet created without one. */
export const DEFAULT_CURRENCY = "KES";
/** Lifetime of an issued token when the caller names none: one hour. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const SECRET_LENGTH = 32;

export interface WalletInput {
  /** The customer's paybill/till; null or absent for the default wallet. */
  readonly shortcode?: string | null;
  readonly balanceCents: number;
  readonly currency?: string;
}

export interface CustomerInput {
  /** Generated (`cus_…`) when absent. */
  readonly id?: string;
  readonly name?: string;
  /** Static bearer tokens; one `tok_…` is generated when absent. */
  readonly tokens?: readonly string[];
  /** HTTP Basic secret for `POST /v1/auth/token`; generated (`key_…`) when absent. */
  readonly apiKey?: string;
  /** The default wallet is always created (balance 0 unless listed here with no shortcode). */
  readonly wallets?: readonly WalletInput[];
  readonly webhook?: WebhookEndpoint;
}

export interface CustomerUpdate {
  readonly name?: string;
  /** Replaces the static tokens. */
  readonly tokens?: readonly string[];
  readonly apiKey?: string;
  /** Sets each listed wallet's balance; a shortcode the customer lacks adds that wallet. */
  readonly wallets?: readonly WalletInput[];
  /** An endpoint sets (or replaces) it, null removes it. */
  readonly webhook?: WebhookEndpoint | null;
}

export type CreateCustomerOutcome =
  | { readonly kind: "created"; readonly customer: Customer }
  | { readonly kind: "id_taken"; readonly id: string }
  | { readonly kind: "token_taken" }
  | { readonly kind: "invalid"; readonly detail: string };

export type UpdateCustomerOutcome =
  | { readonly kind: "updated"; readonly customer: Customer }
  | { readonly kind: "not_found" }
  | { readonly kind: "token_taken" }
  | { readonly kind: "invalid"; readonly detail: string };

export type IssueTokenOutcome =
  | {
      readonly kind: "issued";
      readonly accessToken: string;
      /** Simulator-clock milliseconds. */
      readonly issuedAt: number;
      readonly expiresInSeconds: number;
    }
  | { readonly kind: "invalid_client" };

export interface CustomerDirectory {
  create(input: CustomerInput): Promise<CreateCustomerOutcome>;
  update(id: string, update: CustomerUpdate): Promise<UpdateCustomerOutcome>;
  get(id: string): Promise<Customer | undefined>;
  list(): Promise<Customer[]>;
  /**
   * HTTP Basic (customer id : API key) → an expiring bearer token. Unknown
   * customer and wrong key give the same answer in the same time.
   */
  issueToken(customerId: string, apiKey: string, ttlSeconds?: number): Promise<IssueTokenOutcome>;
}

export interface CustomerDirectoryDeps {
  readonly store: Store;
  readonly ids: Ids;
  readonly clock: Clock;
  /**
   * Where generated tokens, API keys and issued tokens come from. The domain
   * reads no randomness of its own: the simulator passes a `node:crypto`
   * source (`createCryptoRandom()`), so replaying a seed never makes secrets
   * guessable; a test may pass a seeded source for reproducible secrets.
   */
  readonly secrets: Random;
}

function checkWallets(wallets: readonly WalletInput[]): string | undefined {
  const seen = new Set<string | null>();
  for (const wallet of wallets) {
    const shortcode = wallet.shortcode ?? null;
    if (seen.has(shortcode)) return `wallet ${shortcode ?? "(default)"} is listed twice`;
    seen.add(shortcode);
    if (!Number.isSafeInteger(wallet.balanceCents) || wallet.balanceCents < 0) {
      return `wallet ${shortcode ?? "(default)"}: balanceCents must be an integer >= 0`;
    }
    if (shortcode === "") return "a wallet shortcode must not be empty";
  }
  return undefined;
}

/** Code that creates customers directly (`createSimulator({customers})`) meets the admin API's URL rule here. */
function checkWebhook(webhook: WebhookEndpoint | null | undefined): string | undefined {
  if (webhook === undefined || webhook === null || !hasUrlCredentials(webhook.url)) return undefined;
  return `webhook.url ${WEBHOOK_URL_CREDENTIALS_RULE}`;
}

function checkTokens(tokens: readonly string[] | undefined): string | undefined {
  if (tokens === undefined) return undefined;
  if (tokens.some((token) => token.length === 0)) return "a token must not be empty";
  if (new Set(tokens).size !== tokens.length) return "a token is listed twice";
  return undefined;
}

/**
 * @example
 * const customers = createCustomerDirectory({ store, ids, clock, secrets: createCryptoRandom() });
 * const created = await customers.create({ name: "Duka", wallets: [{ balanceCents: 500_000 }, { shortcode: "174379", balanceCents: 0 }] });
 * // created.kind === "created"; created.customer.tokens[0] is a generated "tok_…"
 * await customers.issueToken(created.customer.id, created.customer.apiKey, 60); // { kind: "issued", accessToken: "at_…", … }
 */
export function createCustomerDirectory(deps: CustomerDirectoryDeps): CustomerDirectory {
  const { store, ids, clock, secrets } = deps;
  const secret = (prefix: string): string => `${prefix}_${randomBase32(secrets, SECRET_LENGTH)}`;

  /** True when another customer already answers to one of the tokens. */
  async function tokensTaken(ownerId: string, tokens: readonly string[]): Promise<boolean> {
    for (const token of tokens) {
      const owner = await store.findCustomerByToken(token);
      if (owner !== undefined && owner.id !== ownerId) return true;
    }
    return false;
  }

  return {
    async create(input) {
      // A new customer's own defaults, each drawn only once the checks before it passed, as a seed replays them.
      const { wallets = [] } = input;
      const invalid = checkWallets(wallets) ?? checkTokens(input.tokens) ?? checkWebhook(input.webhook);
      if (invalid !== undefined) return { kind: "invalid", detail: invalid };
      const { id = ids.next("cus") } = input;
      if ((await store.getCustomer(id)) !== undefined) return { kind: "id_taken", id };
      const { tokens = [secret("tok")] } = input;
      if (await tokensTaken(id, tokens)) return { kind: "token_taken" };
      const { name = id, apiKey = secret("key") } = input;

      const toWallet = (wallet: WalletInput): Wallet => ({
        shortcode: wallet.shortcode ?? null,
        balanceCents: wallet.balanceCents,
        currency: wallet.currency ?? DEFAULT_CURRENCY,
      });
      const listedDefault = wallets.find((wallet) => (wallet.shortcode ?? null) === null);
      const customer: Customer = {
        id,
        name,
        tokens,
        apiKey,
        // The default wallet first, then the shortcode wallets in the order given.
        wallets: [
          listedDefault === undefined ? toWallet({ balanceCents: 0 }) : toWallet(listedDefault),
          ...wallets.filter((wallet) => (wallet.shortcode ?? null) !== null).map(toWallet),
        ],
        ...(input.webhook === undefined ? {} : { webhook: input.webhook }),
      };
      await store.putCustomer(customer);
      return { kind: "created", customer: (await store.getCustomer(id)) ?? customer };
    },

    async update(id, update) {
      const invalid = checkWallets(update.wallets ?? []) ?? checkTokens(update.tokens) ?? checkWebhook(update.webhook);
      if (invalid !== undefined) return { kind: "invalid", detail: invalid };
      if ((await store.getCustomer(id)) === undefined) return { kind: "not_found" };
      if (update.tokens !== undefined && (await tokensTaken(id, update.tokens))) return { kind: "token_taken" };

      const patch: CustomerPatch = {
        ...(update.name === undefined ? {} : { name: update.name }),
        ...(update.tokens === undefined ? {} : { tokens: update.tokens }),
        ...(update.apiKey === undefined ? {} : { apiKey: update.apiKey }),
        ...(update.webhook === undefined ? {} : { webhook: update.webhook }),
      };
      // Own fields and each wallet change atomically on their own, so a concurrent debit is never overwritten.
      if ((await store.patchCustomer(id, patch)) === undefined) return { kind: "not_found" };
      for (const wallet of update.wallets ?? []) {
        await store.setWalletBalance(id, wallet.shortcode ?? null, wallet.balanceCents, wallet.currency);
      }
      const customer = await store.getCustomer(id);
      return customer === undefined ? { kind: "not_found" } : { kind: "updated", customer };
    },

    get: (id) => store.getCustomer(id),
    list: () => store.listCustomers(),

    async issueToken(customerId, apiKey, ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS) {
      if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
        throw new RangeError(`ttlSeconds must be a positive integer, got ${ttlSeconds}`);
      }
      const customer = await store.getCustomer(customerId);
      // Compare against something even for an unknown customer, so timing does not tell which part was wrong.
      const matches = secretsEqual(apiKey, customer?.apiKey ?? "\u0000unknown customer");
      if (customer === undefined || !matches) return { kind: "invalid_client" };
      const issuedAt = clock.now();
      const accessToken = secret("at");
      await store.putIssuedToken({
        token: accessToken,
        customerId,
        issuedAt,
        expiresAt: issuedAt + ttlSeconds * 1000,
      });
      return { kind: "issued", accessToken, issuedAt, expiresInSeconds: ttlSeconds };
    },
  };
}
