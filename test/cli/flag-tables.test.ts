/**
 * The flag tables of `serve` and `contract`: every entry points at a path its
 * schema knows, and the partial configs from file, environment and flags
 * merge in that order before the one parse.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { CONTRACT_FLAGS, parseContractArgs } from "../../src/cli/contract.ts";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { SERVE_FLAGS } from "../../src/cli/serve-flags.ts";
import { ContractOptionsSchema } from "../../src/harness/contract-options.ts";
import { SimulatorConfigSchema } from "../../src/simulator/config-schema.ts";

function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

describe("every flag sets a path its schema knows", () => {
  test.each(SERVE_FLAGS.map((flag) => [flag.name, flag.path] as const))("serve --%s", (_name, path) => {
    const parsed = SimulatorConfigSchema.safeParse(nest(path, "x"));
    const unknown = parsed.success ? [] : parsed.error.issues.filter((issue) => issue.code === "unrecognized_keys");
    expect(unknown).toEqual([]);
  });

  const contractFlags = CONTRACT_FLAGS.flatMap((section) => section.flags).filter((flag) => flag.path[0] !== "report");
  test.each(contractFlags.map((flag) => [flag.name, flag.path] as const))("contract --%s", (_name, path) => {
    const parsed = ContractOptionsSchema.strict().safeParse(nest(path, "1"));
    const unknown = parsed.success ? [] : parsed.error.issues.filter((issue) => issue.code === "unrecognized_keys");
    expect(unknown).toEqual([]);
  });
});

describe("serve: file, then environment, then flags, parsed once", () => {
  const dir = mkdtempSync(join(tmpdir(), "flag-tables-"));
  const file = join(dir, "sim.yaml");
  writeFileSync(
    file,
    "port: 5000\nhost: 0.0.0.0\nadminToken: admin-token-flag-tables\nscenarios:\n  active: [flaky-gateway]\ndemo: false\n",
  );

  test("lists add up, single values are replaced, a flag's demo field revives the demo customer", async () => {
    const parsed = await parseServeArgs(
      ["--config", file, "--scenario", "./mine.yaml", "--demo-token", "demo-token-1"],
      {
        AIRTIME_SIM_PORT: "5001",
      },
    );
    expect(parsed.kind).toBe("settings");
    if (parsed.kind !== "settings") return;
    expect(parsed.settings).toMatchObject({ port: 5001, host: "0.0.0.0" });
    expect(parsed.settings.options.demo).toEqual({ token: "demo-token-1" });
    expect(parsed.settings.options.scenarios).toEqual({
      active: ["flaky-gateway", resolve("mine.yaml")],
      baseDir: dir,
    });
  });

  test("a bad value is told against where it came from: flag, variable or file", async () => {
    expect(await parseServeArgs(["--config", file, "--port", "x"], {})).toEqual({
      kind: "error",
      message: "--port must be an integer 0–65535",
    });
    expect(await parseServeArgs(["--config", file], { AIRTIME_SIM_SEED: "x" })).toEqual({
      kind: "error",
      message: "AIRTIME_SIM_SEED: --seed must be an integer",
    });
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "seed: x\n");
    expect(await parseServeArgs(["--config", bad], {})).toEqual({
      kind: "error",
      message: `${bad}: invalid config\n  seed: must be an integer`,
    });
  });
});

describe("contract: environment twins", () => {
  test("a token variable is read only together with its target", async () => {
    expect(await parseContractArgs([], { AIRTIME_TOKEN: "from-env-token" })).toEqual({ ok: true, options: {} });
  });
});
