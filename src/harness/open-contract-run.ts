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
import { DEFAULT_FINAL_TIMEOUT_MS, DEFAULT_MAX_COMMANDS, DEFAULT_WEBHOOK_TIMEOUT_MS } from "./contract-options.ts";
import type { ContractPlan } from "./contract-plan.ts";
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
  const { options, provider, profile } = plan;
  const target = await resolveTarget(plan.spec);
  closers.push(target.close);
  const receiver = await startReceiver(plan, target);
  if (receiver !== undefined) closers.push(receiver.close);
  let prism: PrismProxy | undefined;
  if (options.validateWithPrism === true) {
    prism = await startPrism({
      upstream: target.url,
      provider: options.provider,
      ...(options.prismCwd === undefined ? {} : { cwd: options.prismCwd }),
    });
    closers.push(prism.close);
  }
  const proxy = await startFaultProxy({ target: prism?.url ?? target.url });
  closers.push(proxy.close);
  const timeout = options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs };
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
      receiver === undefined ? undefined : { url: options.webhookUrl ?? receiver.url, secret: receiver.secret },
    timeouts: {
      finalMs: options.finalTimeoutMs ?? DEFAULT_FINAL_TIMEOUT_MS,
      // The in-process simulator has delivered by the time its clock call returns; a short wait suffices.
      webhookMs: options.webhookTimeoutMs ?? (target.kind === "in_process" ? 2000 : DEFAULT_WEBHOOK_TIMEOUT_MS),
      pollMs: 100,
      maxWaitMs: options.maxWaitMs ?? 500,
    },
    maxCommands: options.maxCommands ?? DEFAULT_MAX_COMMANDS,
    maxAmountCents: budget.limitCents === undefined ? 500_000 : Math.min(50_000, budget.limitCents),
    ledger: createLedger(),
    promises: createPromisedOrders(),
    placements: createPlacementTally(),
    sharedAccount: options.sharedAccount === true,
    timings,
    profile,
    provider,
    tokens: plan.tokens,
    targetSpec: options.specFile === undefined ? undefined : await loadTargetSpec(options.specFile),
    nextPrefix: () => `h${nonce}${(++prefixes).toString(36)}`,
  };
}

async function budgetFor(plan: ContractPlan, target: ResolvedTarget, client: HttpClient): Promise<Budget> {
  const { options } = plan;
  if (options.budget !== undefined) return createBudget(Math.round(options.budget * 100));
  if (target.kind === "remote" && target.admin === undefined) {
    // One account, no admin powers to fund another: never ask for more than it holds at the start, so
    // the run cannot drain it and leave later properties facing a 402 they did not cause.
    const start = await startingBalanceCents(client, options.token as string, plan.provider);
    if (start !== undefined) return createBudget(start);
  }
  return createBudget(undefined);
}

async function startReceiver(plan: ContractPlan, target: ResolvedTarget): Promise<WebhookReceiver | undefined> {
  const { options, provider, profile } = plan;
  // The interface shows no signing (§6): under `interface` a profile naming no scheme means unsigned deliveries.
  const verifier = profile === "interface" && !provider.given.signing ? UNSIGNED.verifier(undefined) : undefined;
  const common = { provider, ...(verifier === undefined ? {} : { verifier }) };
  if (options.webhookListen !== undefined && options.webhookSecret !== undefined) {
    const { host, port } = parseListen(options.webhookListen);
    return startWebhookReceiver({ ...common, secret: options.webhookSecret, host, port });
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
