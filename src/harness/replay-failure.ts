/**
 * Replays one emitted failure (emit-test.ts) against AIRTIME_TARGET, or the
 * target it was found on: the same check, property, seed and path as
 * `contract --checks C --property P --seed S --path X`, with the secrets
 * from the environment, never from the file.
 */
import { HarnessError } from "./checker.ts";
import type { ContractOptions } from "./contract-options.ts";
import { type EmittedFailure, EmittedFailureSchema } from "./emit-test.ts";
import type { ContractReport } from "./report.ts";
import { runContract } from "./run-contract.ts";

export interface ReplayOutcome {
  /** False while the target still breaks the check. */
  readonly holds: boolean;
  /** "<check> holds", or "<check> failed again: <message>": the check is named either way. */
  readonly verdict: string;
  readonly report: ContractReport;
}

/**
 * Throws when the failure cannot be replayed (a harness error, no token for a
 * remote target); a check that fails again is an outcome, not an exception.
 *
 * @example
 * import { replayFailure } from "airtime-harness/testing";
 * const outcome = await replayFailure(failure);
 * expect(outcome.verdict).toBe("never_server_error holds");
 */
export async function replayFailure(failure: unknown, env: NodeJS.ProcessEnv = process.env): Promise<ReplayOutcome> {
  const parsed = EmittedFailureSchema.parse(failure);
  const report = await runContract(replayOptions(parsed, env));
  const verdict = report.checks.find((check) => check.name === parsed.check);
  if (verdict?.status === "failed") {
    return { holds: false, verdict: `${parsed.check} failed again: ${verdict.failure.message}`, report };
  }
  if (verdict === undefined || report.errors.length > 0) {
    throw new HarnessError(`${parsed.check} could not be replayed: ${report.errors.join("; ") || "no verdict"}`);
  }
  return { holds: true, verdict: `${parsed.check} holds`, report };
}

function replayOptions(failure: EmittedFailure, env: NodeJS.ProcessEnv): ContractOptions {
  const { target: found, adminUrl, webhookListen, provider, ...run } = failure.run;
  const target = env.AIRTIME_TARGET ?? found;
  if (target !== undefined && env.AIRTIME_TOKEN === undefined) {
    throw new HarnessError(`set AIRTIME_TOKEN to the bearer token of ${target}`);
  }
  // The admin API and the webhook receiver need their secrets; without them the replay runs without them.
  const admin = env.AIRTIME_ADMIN_URL ?? adminUrl;
  const listen = env.AIRTIME_WEBHOOK_LISTEN ?? webhookListen;
  return {
    ...run,
    ...(provider === undefined ? {} : { provider }),
    ...(target === undefined ? {} : { target, token: env.AIRTIME_TOKEN }),
    ...(env.AIRTIME_OTHER_TOKEN === undefined ? {} : { otherToken: env.AIRTIME_OTHER_TOKEN }),
    ...(admin === undefined || env.AIRTIME_ADMIN_TOKEN === undefined
      ? {}
      : { adminUrl: admin, adminToken: env.AIRTIME_ADMIN_TOKEN }),
    ...(listen === undefined || env.AIRTIME_WEBHOOK_SECRET === undefined
      ? {}
      : { webhookListen: listen, webhookSecret: env.AIRTIME_WEBHOOK_SECRET }),
    checks: [failure.check],
    properties: [failure.property],
    seed: failure.seed,
    path: failure.path,
  };
}
