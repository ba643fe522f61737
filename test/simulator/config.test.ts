import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, loadSimulatorConfig } from "../../src/simulator/config.ts";
import {
  admin,
  balanceOf,
  bearer,
  orderBody,
  placeOrder,
  send,
  startSimulatorOnPort as startSimulator,
} from "../support/http.ts";

const dir = mkdtempSync(join(tmpdir(), "sim-config-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const FULL = `
clock: virtual
seed: 42
timing: 3s
failureRate: 0
adminToken: admin-token-from-config
tokenTtlSeconds: 600
idempotencyRetention: 1h
limits: { minAmount: 5, maxAmount: 500, currencies: [KES] }
statusProfile: profile.yaml
demo: false
customers:
  - id: acme
    name: Acme Ltd
    tokens: [acme-token-0001, acme-token-0002]
    apiKey: acme-api-key-01
    balance: 1000
    wallets:
      - { shortcode: "600100", balance: 250.5 }
    webhook:
      url: http://127.0.0.1:9/hooks
`;

const PROFILE = `
- { code: 0, message: Queued, class: pending }
- { code: 20, message: Delivered, class: success }
- { code: 2, message: Failed, class: failed }
- { code: 6, message: Timeout, class: failed }
- { code: 7, message: Insufficient balance, class: failed }
- { code: 8, message: Reversed, class: failed }
`;

describe("loadSimulatorConfig", () => {
  test("a full config drives the simulator: customers, wallets, tokens, limits, timing, profile, retention", async () => {
    file("profile.yaml", PROFILE);
    const options = await loadSimulatorConfig(file("full.yaml", FULL));
    const sim = await startSimulator({ ...options });
    try {
      expect(sim.adminToken).toBe("admin-token-from-config");
      expect(sim.demo).toBeUndefined();
      expect(await balanceOf(sim, "acme-token-0002")).toBe(1000);
      expect(await balanceOf(sim, "acme-token-0001", "600100")).toBe(250.5);
      const customer = (await admin(sim, "/customers/acme")).body;
      expect(customer).toMatchObject({
        name: "Acme Ltd",
        apiKey: "acme-api-key-01",
        webhook: { url: "http://127.0.0.1:9/hooks" },
      });
      expect(customer.webhook.secrets[0]).toMatch(/^whsec_/);
      expect((await placeOrder(sim, orderBody({ amount: 501 }), {}, "acme-token-0001")).status).toBe(400);
      const body = orderBody({ amount: 5 });
      const placed = await placeOrder(sim, body, { "idempotency-key": "cfg-key" }, "acme-token-0001");
      expect(placed.body).toMatchObject({ status: 0, message: "Queued" });
      await sim.clock.advance(3_000);
      const lookup = await send(`${sim.url}/v1/airtime/${body.reference}`, { headers: bearer("acme-token-0001") });
      expect(lookup.body).toMatchObject({ status: 20, message: "Delivered" });
      await sim.clock.advance(3_600_000 - 3_000);
      // One hour of retention, then the key is free again.
      const fresh = await placeOrder(
        sim,
        orderBody({ amount: 5 }),
        { "idempotency-key": "cfg-key" },
        "acme-token-0001",
      );
      expect(fresh.headers.get("idempotent-replayed")).toBeNull();
      expect(fresh.status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  test("an empty file is a valid config (all defaults)", async () => {
    expect(await loadSimulatorConfig(file("empty.yaml", ""))).toEqual({});
  });

  test.each([
    ["an unknown key", "clok: virtual\n", /clok/],
    ["a bad timing", "timing: soon\n", /timing: .*soon/],
    ["a bad customer field", "customers:\n  - id: a\n    balance: -5\n", /customers\[0\]\.balance/],
    ["a duplicate customer id", "customers:\n  - id: a\n  - id: a\n", /"a" is used twice/],
    ["min above max", "limits: { minAmount: 50, maxAmount: 10 }\n", /minAmount must not exceed maxAmount/],
    ["shares above 1", "outcomes: [{ status: 2, share: 0.7 }, { status: 6, share: 0.4 }]\n", /outcomes: .*at most 1/],
    ["a status named twice", "outcomes: [{ status: 2, share: 0.1 }, { status: 2, share: 0.1 }]\n", /outcomes: .*once/],
    ["outcomes with failureRate", "failureRate: 0.1\noutcomes: [{ status: 2, share: 0.1 }]\n", /not both/],
    ["invalid YAML", "customers: [\n", /not valid YAML/],
    [
      "a profile without pending 0",
      "statusProfile:\n  - { code: 20, message: OK, class: success }\n",
      /statusProfile: .*0/,
    ],
  ])("%s is a clear error naming the file and the path", async (_name, text, message) => {
    const path = file(`bad-${Math.random().toString(36).slice(2)}.yaml`, text);
    const error = await loadSimulatorConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(message);
  });

  test("a missing file is a ConfigError", async () => {
    await expect(loadSimulatorConfig(join(dir, "missing.yaml"))).rejects.toThrow(/cannot read/);
  });
});
