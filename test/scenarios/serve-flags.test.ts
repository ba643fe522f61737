/** `serve --scenario`, `--scenario-for` and `--magic-accounts`, through the real argument parser. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";

let dir = "";
let file = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scenario-serve-"));
  file = join(dir, "qa-slow.yaml");
  await writeFile(file, "name: qa-slow\ndescription: slow\nrules:\n  - {name: slow, effects: {latency: 1s}}\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("repeated --scenario and --scenario-for flags activate names and files, globally and per customer", async () => {
  const parsed = await parseServeArgs(
    [
      "--scenario",
      "flaky-gateway",
      "--scenario",
      relative(process.cwd(), file),
      "--scenario-for",
      "acme=stuck-pending,acme=reversals",
      "--magic-accounts",
      "off",
    ],
    {},
  );
  expect(parsed.kind).toBe("settings");
  if (parsed.kind !== "settings") return;
  expect(parsed.settings.options.scenarios).toEqual({
    active: ["flaky-gateway", file],
    customers: { acme: ["stuck-pending", "reversals"] },
    magicAccounts: false,
  });
  const sim = await createSimulator({ ...parsed.settings.options, clock: "virtual" });
  try {
    const res = await fetch(`${await sim.listen()}/_sim/scenarios`, {
      headers: { authorization: `Bearer ${sim.adminToken}` },
    });
    const body = (await res.json()) as { active: unknown; magicAccounts: boolean };
    expect(body.active).toEqual({
      global: ["flaky-gateway", "qa-slow"],
      customers: { acme: ["stuck-pending", "reversals"] },
    });
    expect(body.magicAccounts).toBe(false);
  } finally {
    await sim.close();
  }
});

test("the environment twin takes a comma-separated list", async () => {
  const parsed = await parseServeArgs([], { AIRTIME_SIM_SCENARIO: "happy-path, slow-provider" });
  expect(parsed.kind === "settings" && parsed.settings.options.scenarios).toEqual({
    active: ["happy-path", "slow-provider"],
  });
});

test("a malformed --scenario-for is a usage error", async () => {
  const parsed = await parseServeArgs(["--scenario-for", "stuck-pending"], {});
  expect(parsed).toEqual({ kind: "error", message: '--scenario-for needs CUSTOMER=FILE|NAME, got "stuck-pending"' });
});
