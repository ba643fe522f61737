/**
 * One profile for both halves: the simulator serving a provider profile
 * passes `contract --profile interface --provider` with the same file, over
 * five seeds (run in parallel), every judged check passed and covered. The
 * simulator is reached as a deployment is: a real clock with fast random
 * finals (a quarter of them failures), one customer's token and a second
 * customer's, webhooks to the harness's receiver under the profile's
 * signing scheme. Every response is also judged against the dialect's own
 * OpenAPI document (`spec --provider`), as `contract --spec` does.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { dialectOpenApiDocument } from "../../src/contract/openapi/dialect-document.ts";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { freePort } from "../../src/harness/child-process.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";

const SEEDS = [1, 2, 3, 4, 5];
const FOREIGN_PROFILE = fileURLToPath(new URL("./foreign/foreign-profile.yaml", import.meta.url));
const EXAMPLES = new URL("../../examples/providers/", import.meta.url);
/** Accounts every example's domain accepts (local and international forms, three operators). */
const ACCOUNTS = ["0712000101", "254733000202", "0770000303"];

async function profileAt(file: string): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(file);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/** The dialect's own OpenAPI document (`spec --provider`), in a file as `--spec` takes it. */
function dialectSpecFile(provider: ProviderProfile): string {
  const file = join(mkdtempSync(join(tmpdir(), "dialect-spec-")), "openapi.json");
  writeFileSync(file, JSON.stringify(dialectOpenApiDocument(provider)));
  return file;
}

async function runAgainstDialect(provider: ProviderProfile, seed: number, specFile: string): Promise<ContractReport> {
  const token = `dialect-${randomBytes(6).toString("hex")}`;
  const otherToken = `dialect-other-${randomBytes(6).toString("hex")}`;
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const receiverPort = await freePort();
  const sim = await createSimulator({
    provider,
    clock: "real",
    seed,
    timing: { kind: "uniform", minMs: 50, maxMs: 150 },
    failureRate: 0.25,
    demo: false,
    scenarios: false,
    customers: [
      {
        id: "dialect",
        token,
        balance: 1_000_000,
        webhook: { url: `http://127.0.0.1:${receiverPort}/webhooks`, secrets: [secret] },
      },
      { id: "dialect-other", token: otherToken, balance: 1_000 },
    ],
    webhooks: { schedule: "0,100ms,500ms", jitter: 0 },
  });
  try {
    const url = await sim.listen(0, "127.0.0.1");
    return await runContract({
      target: url,
      token,
      otherToken,
      accounts: ACCOUNTS,
      webhookListen: `127.0.0.1:${receiverPort}`,
      webhookSecret: secret,
      profile: "interface",
      provider,
      specFile,
      seed,
      finalTimeoutMs: 5000,
      webhookTimeoutMs: 1000,
    });
  } finally {
    await sim.close();
  }
}

function expectPassedAndCovered(report: ContractReport): void {
  const seed = report.seed;
  expect(report.errors, `seed ${seed}`).toEqual([]);
  const failures = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
  expect(failures, `seed ${seed}`).toEqual([]);
  for (const check of report.checks) {
    if (check.status === "skipped") {
      expect(check.reason, `${check.name}, seed ${seed}`).toMatch(/interface/);
      continue;
    }
    expect(check.status, `${check.name}, seed ${seed}`).toBe("passed");
    if (check.status === "passed") expect(check.coverage.missing, `${check.name}, seed ${seed}`).toEqual([]);
  }
}

const profiles = [
  { name: "the foreign provider's profile", file: FOREIGN_PROFILE },
  ...readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => ({ name: `examples/providers/${name}`, file: fileURLToPath(new URL(name, EXAMPLES)) })),
];

test.each(profiles)(
  "the simulator serving $name passes contract --profile interface with that profile over five seeds",
  async ({ file }) => {
    const provider = await profileAt(file);
    const specFile = dialectSpecFile(provider);
    const reports = await Promise.all(SEEDS.map((seed) => runAgainstDialect(provider, seed, specFile)));
    for (const report of reports) expectPassedAndCovered(report);
  },
  600_000,
);
