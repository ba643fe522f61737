/**
 * What every property of one contract run shares: the target, the HTTP
 * clients (through the fault proxy, or straight to the target), the budget,
 * the recipients, the webhook receiver and the limits.
 */
import type { Recipient } from "./accounts.ts";
import { createPublicApi, type PublicApi } from "./api.ts";
import type { PlacementTally } from "./placement-tally.ts";
import type { Ledger } from "./audit/ledger.ts";
import type { Timings } from "./audit/timings.ts";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import type { Strictness } from "./strictness.ts";
import type { TargetSpec } from "./target-spec.ts";
import type { Budget } from "./budget.ts";
import type { Checker } from "./checker.ts";
import type { ProxyObservation } from "./fault-proxy.ts";
import type { HttpClient } from "./http-client.ts";
import type { ResolvedTarget, Session, WebhookSubscription } from "./target.ts";
import type { TokenSource } from "./token-source.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";
import type { PromisedOrders } from "./audit/promised-orders.ts";
import { type AmountDomain, SPEC_AMOUNTS } from "./properties/negative-cases.ts";

export interface RunTimeouts {
  /** How long an order may take to become final before webhook checks give up on it (wall ms, real clock). */
  readonly finalMs: number;
  /** How long to wait for a webhook after the order is final (wall ms). */
  readonly webhookMs: number;
  /** Interval between lookups while polling for a final status (wall ms). */
  readonly pollMs: number;
  /** Longest single wait of an "advance time" step against a real clock (wall ms). */
  readonly maxWaitMs: number;
}

export interface HarnessContext {
  readonly target: ResolvedTarget;
  /** Through the fault proxy (and Prism, when validating with it): model runs. */
  readonly faultClient: HttpClient;
  /** Straight to the target: stateless properties, whose invalid requests Prism would answer itself. */
  readonly directClient: HttpClient;
  readonly observe: (requestId: string) => ProxyObservation | undefined;
  readonly prism: boolean;
  readonly budget: Budget;
  readonly recipients: readonly Recipient[];
  readonly receiver: WebhookReceiver | undefined;
  /** What fresh customers are subscribed to (the receiver, or the URL the target must use for it). */
  readonly subscription: WebhookSubscription | undefined;
  readonly timeouts: RunTimeouts;
  readonly maxCommands: number;
  readonly maxAmountCents: number;
  /** Every order any property placed. */
  /** How the target answered the model's first attempts at valid orders: names why a run exercised little. */
  readonly placements: PlacementTally;
  readonly ledger: Ledger;
  /** Every order the model placed, with its key and payload: judged again by the late audit and --recheck. */
  readonly promises: PromisedOrders;
  /** The account is shared with others: the balance is judged by a lower bound, not exactly. */
  readonly sharedAccount: boolean;
  /** Where the wall time goes (settling, webhook waits, pauses …), for --verbose. */
  readonly timings: Timings;
  readonly profile: Strictness;
  /** The provider profile, compiled once: every body is read through it. */
  readonly provider: CompiledProfile;
  /** `--spec`: the target's own OpenAPI document, which bodies are judged against. */
  readonly targetSpec: TargetSpec | undefined;
  /** `--token-command`: expiring tokens, refreshed on a 401 after they worked. */
  readonly tokens: TokenSource | undefined;
  /** A prefix unique to one run of one property (references, keys, request ids). */
  nextPrefix(): string;
}

/** An API for stateless properties: straight to the target, judged by `checker`. */
export function directApi(harness: HarnessContext, checker: Checker, prefix: string): PublicApi {
  return harnessApi(harness, checker, prefix, "direct");
}

/**
 * An API judged by `checker` whose request ids start with `prefix`: straight
 * to the target, or through the fault proxy (and Prism) for model runs.
 */
export function harnessApi(
  harness: HarnessContext,
  checker: Checker,
  prefix: string,
  route: "direct" | "through_proxy",
): PublicApi {
  const proxied = route === "through_proxy";
  return createPublicApi({
    client: proxied ? harness.faultClient : harness.directClient,
    checker,
    ...(proxied ? { observe: harness.observe, prism: harness.prism } : {}),
    requestIdPrefix: prefix,
    profile: harness.profile,
    provider: harness.provider,
    ...(harness.targetSpec === undefined ? {} : { targetSpec: harness.targetSpec }),
    ...(harness.tokens === undefined ? {} : { tokens: harness.tokens }),
    waitOutRateLimits: harness.profile === "interface",
  });
}

/**
 * The smallest valid order a stateless property places: our spec's KES 10
 * order, or — when the provider profile states a domain — its smallest
 * amount, with the service given (the interface documents it as required).
 */
export function smallestOrder(
  harness: HarnessContext,
  recipient: Recipient | undefined,
  reference: string,
): { readonly account: string; readonly amount: number; readonly currency: string; readonly reference: string } {
  const base = { account: recipient?.account ?? "", amount: SMALLEST_AMOUNT, currency: "KES", reference };
  if (!harness.provider.given.domain) return base;
  const { domain } = harness.provider;
  return {
    ...base,
    amount: Math.max(SMALLEST_AMOUNT, Math.ceil(domain.minAmount)),
    currency: domain.currency,
    ...(recipient === undefined ? {} : { service: recipient.service }),
  };
}

/** The amounts the target accepts: the profile's domain where it states one, else our spec's. */
export function orderAmounts(harness: HarnessContext): AmountDomain {
  return harness.provider.given.domain ? harness.provider.domain : SPEC_AMOUNTS;
}

/** KES: our spec's smallest order, and the stateless properties' usual amount. */
const SMALLEST_AMOUNT = 10;

/** One customer for all runs of a stateless property, created on first use. */
export function lazySession(harness: HarnessContext): () => Promise<Session> {
  let session: Promise<Session> | undefined;
  return () => {
    session ??= harness.target.newSession(undefined);
    return session;
  };
}
