/**
 * The profile `profile init --from-target` writes is enough for a contract
 * run under `--profile interface`: against each test provider, the correct
 * provider passes over five seeds, and each of twelve planted defects (eleven
 * against Simu) is caught by the check it breaks. The defects are the foreign
 * provider's, planted the same way.
 *
 * The probe never learns the domain (that would take orders that could be
 * placed), and without it most generated orders fall outside what these
 * providers take (Jambo: whole shillings, 5–2000 KES): so the domain comes
 * from each provider's published OpenAPI document, as `contract --spec`
 * reads it. Orders always succeed here, so every status a run meets is one
 * the probe saw; the failed and reversed statuses come from the document
 * too (from-openapi.test.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { domainFromSpecFile } from "../../src/harness/spec-domain.ts";
import type { ForeignDefect } from "../harness/foreign/defects.ts";
import { startLearnKit, WEBHOOK_SECRET } from "./learn-kit.ts";
import type { Dialect } from "./providers/dialect.ts";
import { JAMBO } from "./providers/jambo-dialect.ts";
import { startProvider } from "./providers/provider-server.ts";
import { SIMU } from "./providers/simu-dialect.ts";

const QUIET = { failureRate: 0, reversalRate: 0 } as const;
/** The runs' finals come fast; the probe's keep the default pace, so it sees each order pending first. */
const FAST = { ...QUIET, finalDelayMs: { min: 20, max: 80 } } as const;
const SEEDS = [1, 2, 3, 4, 5];
const DEFECTS: readonly { defect: ForeignDefect; check: string }[] = [
  { defect: "no_token_accepted", check: "auth_required" },
  { defect: "wrong_token_accepted", check: "auth_required" },
  { defect: "replay_new_id", check: "idempotent_replay" },
  { defect: "replay_stale_status", check: "idempotent_replay" },
  { defect: "replay_double_debit", check: "no_double_charge" },
  { defect: "mismatch_accepted", check: "payload_mismatch_rejected" },
  { defect: "mismatch_wrong_code", check: "payload_mismatch_rejected" },
  { defect: "missing_currency_accepted", check: "negative_input_rejected" },
  { defect: "failed_order_debited", check: "no_double_charge" },
  { defect: "final_back_to_pending", check: "status_monotonic" },
  { defect: "cross_customer_lookup", check: "customer_isolation" },
  { defect: "cross_customer_keys", check: "customer_isolation" },
];
const OPENAPI: ReadonlyMap<Dialect, string> = new Map([
  [JAMBO, fileURLToPath(new URL("./providers/jambo.openapi.yaml", import.meta.url))],
  [SIMU, fileURLToPath(new URL("./providers/simu.openapi.yaml", import.meta.url))],
]);

async function probedProfile(dialect: Dialect): Promise<{ profile: ProviderProfile; port: number }> {
  const kit = await startLearnKit(dialect, QUIET);
  try {
    const file = join(kit.dir, "provider.yaml");
    const run = await kit.cli(["init", ...kit.fromTargetArgs(), file]);
    if (run.code !== 0) throw new Error(run.printed.join("\n"));
    const loaded = parseProviderProfile(await readFile(file, "utf8"));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const domain = await domainFromSpecFile(OPENAPI.get(dialect) as string);
    return { profile: { ...loaded.profile, ...(domain === undefined ? {} : { domain }) }, port: kit.port };
  } finally {
    await kit.close();
  }
}

async function failedChecks(
  dialect: Dialect,
  probed: { profile: ProviderProfile; port: number },
  seed: number,
  defect?: ForeignDefect,
) {
  const target = await startProvider(dialect, {
    ...FAST,
    seed,
    webhook: { url: `http://127.0.0.1:${probed.port}/webhooks`, secret: WEBHOOK_SECRET },
    ...(defect === undefined ? {} : { defect }),
  });
  try {
    const report = await runContract({
      target: target.url,
      token: target.tokens.primary,
      otherToken: target.tokens.other,
      accounts: ["0712000101", "0733000202"],
      webhookListen: `127.0.0.1:${probed.port}`,
      webhookSecret: WEBHOOK_SECRET,
      profile: "interface",
      provider: probed.profile,
      seed,
      // A run stops at its first failure: a defect run may draw more commands for the same cost.
      runs: defect === undefined ? 4 : 25,
      lateAuditMs: 1000,
      maxFailures: 1,
      // Judged by which check fails, not by how small the case gets: a failure is not shrunk.
      shrinkTimeMs: 0,
    });
    const exercised = report.checks.filter((check) => check.status === "passed").map((check) => check.name);
    const failed = report.checks.filter((check) => check.status === "failed").map((check) => check.name);
    return { failed: [...failed, ...report.errors], exercised };
  } finally {
    await target.close();
  }
}

describe.each([JAMBO, SIMU])("$name, read through its probed profile", (dialect) => {
  test("the correct provider passes over five seeds, and each planted defect is caught by its check", async () => {
    const probed = await probedProfile(dialect);
    const exercised = new Set<string>();
    for (const seed of SEEDS) {
      const run = await failedChecks(dialect, probed, seed);
      expect(run.failed, `seed ${seed}`).toEqual([]);
      for (const name of run.exercised) exercised.add(name);
    }
    // A short run may not draw every command; over the five seeds every check the defects break has judged a case.
    expect([...exercised]).toEqual(expect.arrayContaining([...new Set(DEFECTS.map(({ check }) => check))]));
    // The negative-input cases are drawn at 10 KES whatever the domain: below Simu's minimum, so an order
    // without its currency is refused for its amount and that defect cannot show there.
    const judged = DEFECTS.filter(({ defect }) => dialect !== SIMU || defect !== "missing_currency_accepted");
    for (const [index, { defect, check }] of judged.entries()) {
      const { failed } = await failedChecks(dialect, probed, index + 1, defect);
      expect(failed, defect).toEqual([check]);
    }
  }, 600_000);
});
