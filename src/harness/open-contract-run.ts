/**
 * The second step of a contract run: everything the properties share, opened
 * — the target, the webhook receiver, Prism, the fault proxy, the budget —
 * as one `AsyncDisposable` that closes them in reverse order.
 */
import { randomBytes } from "node:crypto";
import { type CompiledProfile, compileProfile } from "../contract/provider-profile/compile.ts";
import { createLedger } from "./audit/ledger.ts";
import { createPromisedOrders } from "./audit/promised-orders.ts";
import type { Timings } from "./audit/timings.ts";
import { type Budget, createBudget } from "./budget.ts";
import type { ContractPlan } from "./contract-plan.ts";
import { subscriptionUrl } from "./contract-settings.ts";
import { startFaultProxy } from "./fault-proxy.ts";
import type { HarnessContext } from "./harness-context.ts";
import { createHttpClient, type HttpClient } from "./http-client.ts";
import { parseListen } from "./listen-address.ts";
import { pacedClient } from "./paced-client.ts";
import { createPlacementTally } from "./placement-tally.ts";
import { type PrismProxy, startPrism } from "./prism.ts";
import { loadTargetSpec } from "./target-spec.ts";
import { type ResolvedTarget, resolveTarget } from "./target.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const UNSIGNED = compileProfile({ profile: 1, webhooks: { signing: { scheme: "none" } } });

export interface OpenContractRun extends AsyncDisposable {
  readonly harness: HarnessContext;
  /** Closes everything opened, newest first; returns what failed to close. */
  close(): Promise<string[]>;
}

/** Opens what the properties share; closes what it opened when a later part fails to open. */
export async function openContractRun(plan: ContractPlan, timings: Timings): Promise<OpenContractRun> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<string[]> => {
    const problems: string[] = [];
    for (const closeOne of closers.splice(0).reverse()) {
      await closeOne().catch((error: unknown) => problems.push(`cleanup: ${(error as Error).message}`));
    }
    return problems;
  };
  try {
    const harness = await openParts(plan, timings, closers);
    return {
      harness,
      close,
      [Symbol.asyncDispose]: async () => {
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openParts(
  plan: ContractPlan,
  timings: Timings,
  closers: (() => Promise<void>)[],
): Promise<HarnessContext> {
  const { settings, provider } = plan;
  const target = await resolveTarget(plan.spec);
  closers.push(target.close);
  const receiver = await startReceiver(plan, target);
  if (receiver !== undefined) closers.push(receiver.close);
  let prism: PrismProxy | undefined;
  if (settings.validateWithPrism) {
    prism = await startPrism({
      upstream: target.url,
      provider: settings.provider,
      cwd: settings.prismCwd,
    });
    closers.push(prism.close);
  }
  const proxy = await startFaultProxy({ target: prism?.url ?? target.url });
  closers.push(proxy.close);
  const timeout = { timeoutMs: settings.requestTimeoutMs };
  const { pacer } = plan;
  const directClient = pacedClient(createHttpClient(target.url, timeout), pacer);
  const budget = await budgetFor(plan, target, directClient);
  const nonce = randomBytes(3).toString("hex");
  let prefixes = 0;
  return {
    target,
    faultClient: pacedClient(createHttpClient(proxy.url, timeout), pacer),
    directClient,
    observe: (id) => proxy.observation(id),
    prism: prism !== undefined,
    budget,
    recipients: plan.recipients,
    receiver,
    subscription:
      receiver === undefined ? undefined : { url: subscriptionUrl(settings, receiver.url), secret: receiver.secret },
    timeouts: {
      finalMs: settings.finalTimeoutMs,
      webhookMs: settings.webhookTimeoutMs,
      pollMs: settings.pollMs,
      maxWaitMs: settings.maxWaitMs,
    },
    maxCommands: settings.maxCommands,
    maxAmountCents: budget.limitCents === undefined ? 500_000 : Math.min(50_000, budget.limitCents),
    ledger: createLedger(),
    promises: createPromisedOrders(),
    placements: createPlacementTally(),
    sharedAccount: settings.sharedAccount,
    timings,
    profile: settings.profile,
    provider,
    tokens: plan.tokens,
    targetSpec: settings.specFile === undefined ? undefined : await loadTargetSpec(settings.specFile),
    nextPrefix: () => `h${nonce}${(++prefixes).toString(36)}`,
  };
}

async function budgetFor(plan: ContractPlan, target: ResolvedTarget, client: HttpClient): Promise<Budget> {
  const { settings } = plan;
  if (settings.budget !== undefined) return createBudget(Math.round(settings.budget * 100));
  if (target.kind === "remote" && target.admin === undefined) {
    // One account, no admin powers to fund another: never ask for more than it holds at the start, so
    // the run cannot drain it and leave later properties facing a 402 they did not cause.
    const start = await startingBalanceCents(client, settings.token as string, plan.provider);
    if (start !== undefined) return createBudget(start);
  }
  return createBudget(undefined);
}

async function startReceiver(plan: ContractPlan, target: ResolvedTarget): Promise<WebhookReceiver | undefined> {
  const { settings, provider } = plan;
  // The interface shows no signing (§6): under `interface` a profile naming no scheme means unsigned deliveries.
  const verifier =
    settings.profile === "interface" && !provider.given.signing ? UNSIGNED.verifier(undefined) : undefined;
  const common = { provider, ...(verifier === undefined ? {} : { verifier }) };
  if (settings.webhookListen !== undefined && settings.webhookSecret !== undefined) {
    const { host, port } = parseListen(settings.webhookListen);
    return startWebhookReceiver({ ...common, secret: settings.webhookSecret, host, port });
  }
  if (target.kind === "in_process") {
    // The in-process simulator can reach a local receiver, and the harness subscribes each fresh customer to it.
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    return startWebhookReceiver({ ...common, secret, host: "127.0.0.1", port: 0 });
  }
  return undefined;
}

/** The default wallet's balance in cents, read once before a run; undefined when it cannot be read. */
async function startingBalanceCents(
  client: HttpClient,
  token: string,
  provider: CompiledProfile,
): Promise<number | undefined> {
  const outcome = await client.send({
    method: "GET",
    path: "/v1/balance",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  if (outcome.kind !== "response" || outcome.status !== 200) return undefined;
  return provider.readBalanceCents(outcome.json);
}
