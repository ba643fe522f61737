/**
 * Customers as configured (config file, options, admin API) → domain
 * records. A customer's configured state is its baseline: `reset` puts it
 * back, balances included.
 */
import type { AdminUpdateCustomerRequest } from "../contract/admin-schemas.ts";
import { toCents } from "../contract/money.ts";
import {
  type CustomerUpdate,
  type CustomerInput as DirectoryCustomerInput,
  DEFAULT_CURRENCY,
} from "../domain/customers.ts";
import type { Customer, Wallet, WebhookEndpoint } from "../domain/model.ts";
import { generateWebhookSecret } from "./credentials.ts";

/** Default wallet balance of a customer created without one, in KES. */
const DEFAULT_CUSTOMER_BALANCE = 10_000;

/** A customer as written in a config file or passed to `createSimulator({customers})`. */
export interface CustomerInput {
  readonly id?: string | undefined;
  readonly name?: string | undefined;
  readonly token?: string | undefined;
  readonly tokens?: readonly string[] | undefined;
  readonly apiKey?: string | undefined;
  /** Default wallet balance, KES. */
  readonly balance?: number | undefined;
  readonly currency?: string | undefined;
  readonly wallets?: readonly { readonly shortcode: string; readonly balance: number }[] | undefined;
  readonly webhook?: { readonly url: string; readonly secrets?: readonly string[] | undefined } | undefined;
}

function webhookOf(input: { url: string; secrets?: readonly string[] | undefined }): WebhookEndpoint {
  return { url: input.url, secrets: input.secrets === undefined ? [generateWebhookSecret()] : [...input.secrets] };
}

/**
 * A configured customer → the directory's input: KES → cents, one token or
 * several, a webhook secret generated when only a URL is given. Without a
 * `balance`, the default wallet starts at {@link DEFAULT_CUSTOMER_BALANCE}.
 */
export function toDirectoryInput(input: CustomerInput): DirectoryCustomerInput {
  // A configured customer's own defaults, given where its record is built.
  const { currency = DEFAULT_CURRENCY, balance = DEFAULT_CUSTOMER_BALANCE, wallets = [], tokens: listed = [] } = input;
  const tokens = [...listed, ...(input.token === undefined ? [] : [input.token])];
  return {
    ...(input.id === undefined ? {} : { id: input.id }),
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(tokens.length === 0 ? {} : { tokens: [...new Set(tokens)] }),
    ...(input.apiKey === undefined ? {} : { apiKey: input.apiKey }),
    wallets: [
      { shortcode: null, balanceCents: toCents(balance), currency },
      ...wallets.map((w) => ({ shortcode: w.shortcode, balanceCents: toCents(w.balance), currency })),
    ],
    ...(input.webhook === undefined ? {} : { webhook: webhookOf(input.webhook) }),
  };
}

/** An admin PATCH → the directory's update, with any new webhook secret generated once. */
export function toDirectoryUpdate(patch: AdminUpdateCustomerRequest): ResolvedCustomerPatch & CustomerUpdate {
  const webhook = patch.webhook === undefined || patch.webhook === null ? patch.webhook : webhookOf(patch.webhook);
  return {
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.tokens === undefined ? {} : { tokens: [...new Set(patch.tokens)] }),
    ...(patch.wallets === undefined
      ? {}
      : { wallets: patch.wallets.map((w) => ({ shortcode: w.shortcode, balanceCents: toCents(w.balance) })) }),
    ...(webhook === undefined ? {} : { webhook }),
  };
}

/** The baseline after an admin PATCH: the patched fields, the rest unchanged. */
export interface ResolvedCustomerPatch {
  readonly name?: string;
  readonly tokens?: readonly string[];
  readonly wallets?: readonly { readonly shortcode: string | null; readonly balanceCents: number }[];
  /** Secrets already generated, so the store and the baseline get the same ones. */
  readonly webhook?: WebhookEndpoint | null;
}

export function patchBaseline(baseline: Customer, patch: ResolvedCustomerPatch): Customer {
  let wallets = [...baseline.wallets];
  for (const change of patch.wallets ?? []) {
    const cents = change.balanceCents;
    const index = wallets.findIndex((w) => w.shortcode === change.shortcode);
    const currency = wallets[0]?.currency ?? DEFAULT_CURRENCY;
    const wallet: Wallet = {
      shortcode: change.shortcode,
      balanceCents: cents,
      currency: wallets[index]?.currency ?? currency,
    };
    wallets = index === -1 ? [...wallets, wallet] : wallets.map((w, i) => (i === index ? wallet : w));
  }
  const { webhook: _previous, ...rest } = baseline;
  const webhook = patch.webhook === undefined ? baseline.webhook : patch.webhook === null ? undefined : patch.webhook;
  return {
    ...rest,
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.tokens === undefined ? {} : { tokens: [...new Set(patch.tokens)] }),
    wallets,
    ...(webhook === undefined ? {} : { webhook }),
  };
}
