/**
 * Contract runs against the foreign provider (foreign-target.ts), read
 * through its provider profile (foreign-profile.yaml) under `--profile
 * interface`, and the catch test its planted defects share.
 *
 * The defects are judged in one test file per group of the interface's
 * rules (test/harness/foreign-*-defects.test.ts): each defect is a test of
 * five whole contract runs on a real clock, so one file holding all of them
 * would be the longest of the suite, while files run side by side.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../../src/contract/provider-profile/schema.ts";
import { freePort } from "../../../src/harness/child-process.ts";
import type { ContractOptions } from "../../../src/harness/contract-options.ts";
import type { ContractReport } from "../../../src/harness/report.ts";
import { runContract } from "../../../src/harness/run-contract.ts";
import { FOREIGN_DEFECTS, type ForeignDefect, type InterfaceRule } from "./defects.ts";
import { type ForeignTargetOptions, startForeignTarget } from "./foreign-target.ts";

export const SEEDS = [1, 2, 3, 4, 5];
/**
 * The catch tests judge only which check fails, never how small the failing
 * case gets; on a real clock a model run outlasts a short shrink cap anyway,
 * which cut the re-run off while it went on sending requests.
 */
const NO_SHRINKING = 0;
const WEBHOOK_SECRET = "foreign-webhook-secret";

/** The groups of the interface's rules, one test file each; every planted defect's rule is in exactly one. */
export const DEFECT_GROUPS = {
  idempotency: ["§3 rule 2", "§4.4"],
  money: ["§4.3"],
  answers: ["§3 rule 1", "§7"],
  input: ["§2.1", "§8", "no 5xx"],
  webhooks: ["§3 rule 3"],
  access: ["isolation", "§5"],
} as const satisfies Record<string, readonly InterfaceRule[]>;

/**
 * A defect is visible only when the provider does what it breaks. At the
 * default one reversal in five, a loaded machine saw a seed whose few
 * reversals all landed after the run's last balance read; a provider that
 * reverses more often shows the unrefunded reversal in every seed.
 */
const TARGET_FOR_DEFECT: Partial<Record<ForeignDefect, Partial<ForeignTargetOptions>>> = {
  reversal_not_refunded: { reversalRate: 0.6, reversalDelayMs: { min: 20, max: 150 } },
};

async function foreignProfile(): Promise<ProviderProfile> {
  const text = await readFile(new URL("./foreign-profile.yaml", import.meta.url), "utf8");
  const loaded = parseProviderProfile(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/**
 * One contract run against a fresh foreign provider, its customer's token
 * from its token command. `tokenLifetimeMs` short: the token expires several
 * times during the run (the second customer's fixed token must outlive it).
 */
export async function runAgainstForeign(
  seed: number,
  defect: ForeignDefect | undefined,
  options: Partial<ContractOptions>,
  tokenLifetimeMs = 600_000,
): Promise<ContractReport> {
  const port = await freePort();
  const target = await startForeignTarget({
    seed,
    tokenLifetimeMs,
    webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: WEBHOOK_SECRET },
    ...(defect === undefined ? {} : { defect, ...TARGET_FOR_DEFECT[defect] }),
  });
  try {
    return await runContract({
      target: target.url,
      tokenCommand: target.tokenCommand,
      otherToken: target.tokens.other,
      accounts: [...target.accounts],
      webhookListen: `127.0.0.1:${port}`,
      webhookSecret: WEBHOOK_SECRET,
      profile: "interface",
      provider: await foreignProfile(),
      seed,
      ...options,
    });
  } finally {
    await target.close();
  }
}

/** The failed checks, and the harness errors if any (a run that stopped early must show why). */
function failedChecks(report: ContractReport): string[] {
  return [...report.checks.filter((c) => c.status === "failed").map((c) => c.name), ...report.errors];
}

/**
 * Each planted defect of one group is caught by the check it breaks, at the
 * default run count, over five seeds (the seeds of one defect run in
 * parallel). An insufficient balance is provoked from the second customer,
 * whose KES 1,000 the domain's KES 5,000 orders exceed.
 */
export function describeForeignDefectsCaught(group: keyof typeof DEFECT_GROUPS): void {
  const rules: readonly InterfaceRule[] = DEFECT_GROUPS[group];
  describe(`each planted defect of the foreign provider against ${rules.join(", ")}`, () => {
    test.each(FOREIGN_DEFECTS.filter((defect) => rules.includes(defect.rule)))(
      "$name ($rule) is caught by $expectedCheck at the default run count over five seeds",
      async ({ name, expectedCheck, alsoCaughtBy }) => {
        const reports = await Promise.all(
          SEEDS.map((seed) => runAgainstForeign(seed, name, { maxFailures: 1, shrinkTimeMs: NO_SHRINKING })),
        );
        const rightChecks = new Set([expectedCheck, alsoCaughtBy]);
        for (const [index, failed] of reports.map(failedChecks).entries()) {
          expect(failed, `seed ${SEEDS[index]}`).toHaveLength(1);
          expect(rightChecks, `seed ${SEEDS[index]}: ${failed.join(", ")}`).toContain(failed[0]);
        }
      },
      600_000,
    );
  });
}
