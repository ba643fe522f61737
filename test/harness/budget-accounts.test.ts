/**
 * Against a simulator posing as a real deployment (real clock, no admin
 * powers for the harness): the run never spends more than --budget and tops
 * up only the numbers in --accounts. The test itself inspects the simulator
 * through its admin API afterwards.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseContractArgs } from "../../src/cli/contract.ts";
import { toCents } from "../../src/contract/money.ts";
import { createAdminClient } from "../../src/harness/admin-client.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const TOKEN = "posing-as-production-token";
const BUDGET = 100;
const ALLOWED = ["0722000111", "+254733000222"];
let sim: Simulator;
let url: string;
let dir: string;

beforeAll(async () => {
  sim = await createSimulator({ clock: "real", timing: "50ms", seed: 5, demo: { token: TOKEN, balance: 5_000 } });
  url = await sim.listen(0, "127.0.0.1");
  dir = await mkdtemp(join(tmpdir(), "harness-accounts-"));
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

test("the budget is never exceeded and only the allowed accounts receive orders", async () => {
  const accountsFile = join(dir, "accounts.txt");
  await writeFile(accountsFile, `# test numbers we own\n${ALLOWED.join("\n")}\n`);
  const parsed = await parseContractArgs([
    "--target",
    url,
    "--token",
    TOKEN,
    "--budget",
    String(BUDGET),
    "--accounts",
    accountsFile,
    "--runs",
    "25",
    "--max-wait",
    "20ms",
    "--seed",
    "17",
  ]);
  if (!parsed.ok) throw new Error(parsed.error);

  const report = await runContract(parsed.options);

  const orders = await createAdminClient(url, sim.adminToken).listOrders({ customer: "demo" });
  const spentCents = orders.reduce((sum, order) => sum + toCents(order.amount), 0);
  expect(orders.length).toBeGreaterThan(0);
  expect(spentCents).toBeLessThanOrEqual(BUDGET * 100);
  expect(report.spent).toBeLessThanOrEqual(BUDGET);
  const allowed = new Set(["+254722000111", "+254733000222"]);
  expect(orders.map((order) => order.account).filter((account) => !allowed.has(account))).toEqual([]);

  // No admin powers, no second token, no webhook receiver: those checks are skipped with the reason.
  expect(report.checks.filter((check) => check.status === "failed")).toEqual([]);
  expect(report.errors).toEqual([]);
  const reasons = Object.fromEntries(
    report.checks.map((check) => [check.name, check.status === "skipped" ? check.reason : check.status]),
  );
  expect(reasons.customer_isolation).toMatch(/--other-token/);
  expect(reasons.webhook_delivered).toMatch(/--webhook-listen/);
  expect(reasons.idempotent_replay).toBe("passed");
});
