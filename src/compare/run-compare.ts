/**
 * One comparison: the seeded plan sent to the target and to an in-process
 * simulator speaking the same provider profile, both sides observed the
 * same way, then judged rule by rule and scored per operation.
 */
import { compileProfile } from "../contract/provider-profile/compile.ts";
import { generateWebhookSecret } from "../contract/signing.ts";
import { createSimulator } from "../simulator/create-simulator.ts";
import { COMPARE_DEFAULTS, type CompareInput, compareSettings } from "./compare-settings.ts";
import { startWebhookRecorder, type WebhookRecorder } from "./observe-webhooks.ts";
import { observeSide, type SideObservations } from "./observe.ts";
import { planRuns } from "./plan.ts";
import { type FidelityScores, fidelityScores, type RuleResult } from "./rules.ts";
import { judge } from "./judge.ts";
import { referenceCustomers, type Spending, safeRuns, safetyRules } from "./safety.ts";

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

/**
 * @example
 * const report = await runCompare({ target: "https://sandbox.example", token, seed: 1, runs: 20, settleMs: 30_000 });
 * report.scores.overall; // 0.97
 */
export async function runCompare(options: CompareInput): Promise<CompareReport> {
  const input = compareSettings(options);
  const profile = compileProfile(input.provider);
  const referenceWebhooks =
    input.targetWebhooks === undefined
      ? undefined
      : await startWebhookRecorder({ profile, secret: generateWebhookSecret() });
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
      pollMs: input.pollMs,
      accounts: accounts ?? COMPARE_DEFAULTS.accounts,
      requestTimeoutMs: input.requestTimeoutMs,
    };
    const waits = { timeoutMs: input.webhookTimeoutMs, quietMs: input.webhookQuietMs };
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
