/**
 * `serve --provider FILE` and the config's `provider` key: the profile is
 * loaded and validated before the simulator starts, and the simulator it
 * configures speaks that dialect.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { bearer, DEMO_TOKEN, send, startSimulator } from "../support/http.ts";

const FOREIGN_PROFILE = fileURLToPath(new URL("../harness/foreign/foreign-profile.yaml", import.meta.url));

test("--provider FILE loads the profile, and the simulator it configures answers in that dialect", async () => {
  const parsed = await parseServeArgs(["--provider", FOREIGN_PROFILE], {});
  expect(parsed.kind).toBe("settings");
  if (parsed.kind !== "settings") return;
  expect(parsed.settings.options.provider?.name).toBe("Foreign Airtime (test provider)");
  const sim = await startSimulator({ provider: parsed.settings.options.provider });
  try {
    const balance = await send(sim, "/v1/balance", { headers: bearer(DEMO_TOKEN) });
    expect(balance.body.data.available).toBe("100000.00");
  } finally {
    await sim.close();
  }
});

test("the config's provider key resolves from the config's folder; a bad profile names its field", async () => {
  const dir = mkdtempSync(join(tmpdir(), "serve-provider-"));
  writeFileSync(join(dir, "acme.yaml"), "profile: 1\nmoney: string\n");
  writeFileSync(join(dir, "sim.yaml"), "provider: acme.yaml\n");
  const parsed = await parseServeArgs(["--config", join(dir, "sim.yaml")], {});
  expect(parsed.kind === "settings" && parsed.settings.options.provider).toEqual({ profile: 1, money: "string" });

  writeFileSync(join(dir, "bad.yaml"), "profile: 1\nmoney: euros\n");
  const bad = await parseServeArgs(["--provider", join(dir, "bad.yaml")], {});
  expect(bad.kind).toBe("error");
  expect(bad.kind === "error" && bad.message).toMatch(/bad\.yaml.*money: expected one of number\|string/);
});
