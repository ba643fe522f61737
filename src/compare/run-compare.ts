/**
 * One comparison: the seeded plan sent to the target and to an in-process
 * simulator speaking the same provider profile, both sides observed the
 * same way, then judged rule by rule and scored per operation.
 */
import { compileProfile } from "../contract/provider-profile/compile.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { createSimulator } from "../simulator/create-simulator.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import { startWebhookRecorder, type WebhookRecorder } from "./observe-webhooks.ts";
import { type ObserveProgress, observeSide, type SideObservations } from "./observe.ts";
import { planRuns } from "./plan.ts";
import { type FidelityScores, fidelityScores, type RuleResult } from "./rules.ts";
import { judge } from "./judge.ts";
import { type CompareSafety, referenceCustomers, type Spending, safeRuns, safetyRules } from "./safety.ts";

export interface CompareInput {
  readonly target: string;
  readonly token: string;
  readonly provider?: ProviderProfile | undefined;
  readonly seed: number;
  readonly runs: number;
  /** How long a placed order may stay pending before it counts as unsettled. */
  readonly settleMs: number;
  /** Settings of the reference simulator (a config's timing, failure rate …); default our simulator's. */
  readonly reference?: SimulatorOptions | undefined;
  /**
   * The receiver the target posts its webhooks to (`--webhook-listen`); the
   * reference simulator then posts to one of its own. Without it neither
   * side's webhooks are observed.
   */
  readonly targetWebhooks?: WebhookRecorder | undefined;
  /** Most time to wait for a final status's webhook once a side's orders are final (default 10 s). */
  readonly webhookTimeoutMs?: number | undefined;
  /** How long a receiver must stay quiet before the repeats count as over (default 500 ms). */
  readonly webhookQuietMs?: number | undefined;
  /** The safety options `contract` has too: spend, recipients, a second customer, request timeout. */
  readonly safety?: CompareSafety | undefined;
  /** Progress of the target side (the slower one against a real deployment). */
  readonly onProgress?: ((event: ObserveProgress) => void) | undefined;
}

export interface CompareReport {
  readonly target: string;
  readonly provider: string;
  readonly seed: number;
  readonly runs: number;
  readonly results: readonly RuleResult[];
  readonly scores: FidelityScores;
  readonly simulator: SideObservations;
  readonly targetSide: SideObservations;
  /** With `--budget`: the limit, the most the runs sent could spend, and how many runs were planned. */
  readonly spending?: Spending | undefined;
}

/** The reference simulator's customer: rich enough that no planned order runs out of money. */
const REFERENCE_TOKEN = "compare-reference-token";
const REFERENCE_BALANCE = 100_000_000;
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
const DEFAULT_WEBHOOK_QUIET_MS = 500;

/**
 * @example
 * const report = await runCompare({ target: "https://sandbox.example", token, seed: 1, runs: 20, settleMs: 30_000 });
 * report.scores.overall; // 0.97
 */
export async function runCompare(input: CompareInput): Promise<CompareReport> {
  const profile = compileProfile(input.provider);
  const referenceWebhooks = input.targetWebhooks === undefined ? undefined : await startWebhookRecorder({ profile });
  const reference = await createSimulator({
    seed: input.seed,
    ...input.reference,
    ...(input.provider === undefined ? {} : { provider: input.provider }),
    demo: {
      token: REFERENCE_TOKEN,
      balance: REFERENCE_BALANCE,
      ...(referenceWebhooks === undefined
        ? {}
        : { webhook: { url: referenceWebhooks.url, secrets: [referenceWebhooks.secret] } }),
    },
    ...referenceCustomers(input.reference, input.safety),
  }).catch(async (error: unknown) => {
    await referenceWebhooks?.close();
    throw error;
  });
  try {
    const referenceUrl = await reference.listen(0);
    const planned = planRuns({
      seed: input.seed,
      runs: input.runs,
      minAmount: profile.domain.minAmount,
      maxAmount: profile.domain.maxAmount,
    });
    const { runs, accounts, spending } = safeRuns(planned, profile, input.safety);
    const common = {
      profile,
      runs,
      settleMs: input.settleMs,
      accounts,
      requestTimeoutMs: input.safety?.requestTimeoutMs,
    };
    const waits = {
      timeoutMs: input.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
      quietMs: input.webhookQuietMs ?? DEFAULT_WEBHOOK_QUIET_MS,
    };
    const webhooksTo = (recorder: WebhookRecorder | undefined) =>
      recorder === undefined ? {} : { webhooks: { recorder, ...waits } };
    const simulatorOptions = { ...common, baseUrl: referenceUrl, token: REFERENCE_TOKEN };
    const targetOptions = { ...common, baseUrl: input.target.replace(/\/+$/, ""), token: input.token };
    const [simulator, targetSide] = await Promise.all([
      observeSide({ ...simulatorOptions, ...webhooksTo(referenceWebhooks) }),
      observeSide({ ...targetOptions, ...webhooksTo(input.targetWebhooks), onProgress: input.onProgress }),
    ]);
    const results = [
      ...judge(simulator, targetSide),
      ...(await safetyRules(simulatorOptions, targetOptions, input.safety)),
    ];
    return {
      target: input.target,
      provider: profile.name,
      seed: input.seed,
      runs: runs.length,
      results,
      scores: fidelityScores(results),
      simulator,
      targetSide,
      ...(spending === undefined ? {} : { spending }),
    };
  } finally {
    await reference.close();
    await referenceWebhooks?.close();
  }
}
