/**
 * Activation over HTTP: the admin API (list, upload, activate, deactivate),
 * the X-Sim-Scenario header, the config file's `scenarios:` key, and the
 * admin reset restarting attempt counting.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadSimulatorConfig } from "../../src/simulator/config.ts";
import { bearer, send } from "../support/http.ts";
import { answered, DEMO_TOKEN, QA_CUSTOMER, QA_TOKEN, startHarness, useHarness } from "./scenario-harness.ts";

const OUTAGE_YAML = `# a comment QA left
name: qa-outage
description: every order fails with 502 before commit
rules:
  - name: down
    effects:
      httpError: { status: 502, when: before_commit }
`;

const h = useHarness();

describe("the admin API", () => {
  test("uploads YAML, lists it, activates it for one customer only, and deactivates it", async () => {
    const uploaded = await h.admin("POST", "/_sim/scenarios", OUTAGE_YAML, "application/yaml");
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({
      scenario: { name: "qa-outage", rules: ["down"], source: "admin upload" },
      replaced: false,
    });

    const activated = await h.admin("POST", "/_sim/scenarios/qa-outage/activate", { customer: QA_CUSTOMER });
    expect(activated.body).toMatchObject({ scenario: "qa-outage", customer: QA_CUSTOMER, changed: true });
    const listed = await h.admin("GET", "/_sim/scenarios");
    expect(listed.body.active).toEqual({ global: [], customers: { [QA_CUSTOMER]: ["qa-outage"] } });
    expect(listed.body.magicAccounts).toBe(true);

    expect(answered(await h.order({ account: "0712345678", reference: "adm-1", token: QA_TOKEN })).status).toBe(502);
    expect(answered(await h.order({ account: "0712345678", reference: "adm-1", token: DEMO_TOKEN })).status).toBe(200);

    const deactivated = await h.admin("POST", "/_sim/scenarios/qa-outage/deactivate", { customer: QA_CUSTOMER });
    expect(deactivated.body).toMatchObject({ changed: true, active: { global: [], customers: {} } });
    expect(answered(await h.order({ account: "0712345678", reference: "adm-1", token: QA_TOKEN })).status).toBe(200);
  });

  test("activates globally without a customer", async () => {
    await h.admin("POST", "/_sim/scenarios", { yaml: OUTAGE_YAML.replace("qa-outage", "qa-global") });
    expect((await h.admin("POST", "/_sim/scenarios/qa-global/activate")).status).toBe(200);
    try {
      for (const token of [QA_TOKEN, DEMO_TOKEN]) {
        expect(answered(await h.order({ account: "0712345678", reference: "adm-global", token })).status).toBe(502);
      }
    } finally {
      await h.admin("POST", "/_sim/scenarios/qa-global/deactivate");
    }
  });

  test("DELETE removes a scenario active for a customer: it is unlisted, inactive, and a second DELETE is a 404", async () => {
    await h.admin("POST", "/_sim/scenarios", { yaml: OUTAGE_YAML.replace("qa-outage", "qa-removed") });
    await h.admin("POST", "/_sim/scenarios/qa-removed/activate", { customer: QA_CUSTOMER });
    expect(answered(await h.order({ account: "0712345678", reference: "adm-rm", token: QA_TOKEN })).status).toBe(502);
    expect((await h.admin("DELETE", "/_sim/scenarios/qa-removed")).status).toBe(204);
    const listed = await h.admin("GET", "/_sim/scenarios");
    const names = (listed.body.loaded as Array<{ name: string }>).map((scenario) => scenario.name);
    expect(names).not.toContain("qa-removed");
    expect(listed.body.active).toEqual({ global: [], customers: {} });
    expect(answered(await h.order({ account: "0712345678", reference: "adm-rm", token: QA_TOKEN })).status).toBe(200);
    const again = await h.admin("DELETE", "/_sim/scenarios/qa-removed");
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("not_found");
  });

  test("uploading a JSON scenario with an existing name replaces it", async () => {
    const replaced = await h.admin("POST", "/_sim/scenarios", {
      name: "qa-outage",
      description: "now a 503",
      rules: [{ name: "down", effects: { httpError: { status: 503, when: "before_commit" } } }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.replaced).toBe(true);
    const one = await h.admin("GET", "/_sim/scenarios/qa-outage");
    expect(one.body).toMatchObject({ name: "qa-outage", description: "now a 503" });
  });

  test("an invalid upload is a 400 with a pointer per problem, and changes nothing", async () => {
    const before = await h.admin("GET", "/_sim/scenarios");
    const rejected = await h.admin(
      "POST",
      "/_sim/scenarios",
      OUTAGE_YAML.replace("qa-outage", "qa-broken").replace("status: 502", "status: 418"),
      "application/yaml",
    );
    expect(rejected.status).toBe(400);
    expect(rejected.body.code).toBe("validation_failed");
    expect(rejected.body.errors).toEqual([
      { pointer: "#/rules/0/effects/httpError/status", detail: "must be 429, 500, 502 or 503" },
    ]);
    expect(rejected.body.detail).toContain("rules[0].effects.httpError.status: must be 429, 500, 502 or 503 (line 7)");
    expect(await h.admin("GET", "/_sim/scenarios")).toEqual(before);
  });

  test("unknown scenarios and customers are 404s; a bad activation body is a 400", async () => {
    expect((await h.admin("POST", "/_sim/scenarios/nope/activate")).body.code).toBe("not_found");
    const noCustomer = await h.admin("POST", "/_sim/scenarios/flaky-gateway/activate", { customer: "ghost" });
    expect([noCustomer.status, noCustomer.body.code]).toEqual([404, "not_found"]);
    const bad = await h.admin("POST", "/_sim/scenarios/flaky-gateway/activate", { customer: 5 });
    expect([bad.status, bad.body.code]).toEqual([400, "validation_failed"]);
    const wrongMethod = await h.admin("DELETE", "/_sim/scenarios");
    expect([wrongMethod.status, wrongMethod.body.code]).toEqual([405, "method_not_allowed"]);
  });

  test("the scenario routes need the admin token", async () => {
    const res = await send(h.sim, "/_sim/scenarios", { headers: bearer(QA_TOKEN) });
    expect(res.status).toBeGreaterThanOrEqual(401);
    expect(res.status).toBeLessThanOrEqual(403);
  });

  test("an admin reset of a customer restarts its attempt counting", async () => {
    const order = () =>
      h.order({ account: "0700000008", reference: "adm-reset", key: "adm-reset-key", token: QA_TOKEN });
    const first = [];
    for (let i = 0; i < 3; i++) first.push(answered(await order()).status);
    expect(first).toEqual([503, 503, 200]);
    expect((await h.admin("POST", `/_sim/reset?customer=${QA_CUSTOMER}`)).status).toBe(200);
    expect(answered(await order()).status).toBe(503);
  });
});

describe("the X-Sim-Scenario header", () => {
  test("an unknown name is a 400 problem with code unknown_scenario, and nothing is created", async () => {
    const reply = answered(
      await h.order({
        account: "0712345678",
        reference: "hdr-1",
        token: QA_TOKEN,
        headers: { "x-sim-scenario": "no-such" },
      }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: "unknown_scenario", title: "Unknown scenario" });
    expect((await h.lookup("hdr-1", QA_TOKEN)).status).toBe(404);
  });

  test("several names, comma-separated, apply in the order written", async () => {
    const reply = answered(
      await h.order({
        account: "0712345678",
        reference: "hdr-2",
        token: QA_TOKEN,
        headers: { "x-sim-scenario": "insufficient-balance, stuck-pending" },
      }),
    );
    expect(reply.status).toBe(402);
    const journal = await h.admin("GET", `/_sim/journal?customer=${QA_CUSTOMER}`);
    const last = (journal.body.entries as { fired: string[]; path: string }[])
      .filter((e) => e.path === "/v1/airtime")
      .at(-1);
    expect(last?.fired).toEqual(["insufficient-balance/no-float", "stuck-pending/never-completes"]);
  });
});

describe("the config file", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "scenario-config-"));
    await writeFile(join(dir, "outage.yaml"), OUTAGE_YAML);
    await writeFile(
      join(dir, "simulator.yaml"),
      [
        "clock: virtual",
        "customers:",
        "  - {id: acme, token: acme-token-123}",
        "  - {id: zeta, token: zeta-token-123}",
        "scenarios:",
        "  customers:",
        "    acme: [./outage.yaml]",
        "  active: [insufficient-balance]",
        "  magicAccounts: false",
      ].join("\n"),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("activates files (relative to the config) per customer and shipped names globally", async () => {
    const options = await loadSimulatorConfig(join(dir, "simulator.yaml"));
    const configured = await startHarness({ ...options, demo: false });
    try {
      const listed = await configured.admin("GET", "/_sim/scenarios");
      expect(listed.body).toMatchObject({
        active: { global: ["insufficient-balance"], customers: { acme: ["qa-outage"] } },
        magicAccounts: false,
      });
      const acme = answered(
        await configured.order({ account: "0712345678", reference: "c-1", token: "acme-token-123" }),
      );
      const zeta = answered(
        await configured.order({ account: "0712345678", reference: "c-1", token: "zeta-token-123" }),
      );
      expect([acme.status, zeta.status]).toEqual([502, 402]);
    } finally {
      await configured.close();
    }
  });

  test("an unknown key under scenarios: is a config error naming it", async () => {
    await writeFile(join(dir, "typo.yaml"), "scenarios:\n  activ: [happy-path]\n");
    await expect(loadSimulatorConfig(join(dir, "typo.yaml"))).rejects.toThrow(/scenarios.*activ/);
  });
});
