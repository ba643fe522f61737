/**
 * A config file found in the working directory, and `airtime-harness init`,
 * which writes one with an example scenario for a new project.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { startProcess } from "../../src/harness/child-process.ts";
import { CLI_BIN as BIN } from "../support/processes.ts";

const running: RunningProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await child.stop(1_000);
});

/** `airtime-harness <args>` with `cwd` as its working directory. */
function cliIn(cwd: string, args: readonly string[]): RunningProcess {
  const child = startProcess(process.execPath, [BIN, ...args], { cwd });
  running.push(child);
  return child;
}

const folder = (): string => mkdtempSync(join(tmpdir(), "first-project-"));

describe("config discovery", () => {
  test.each(["airtime-harness.config.yaml", "airtime-harness.config.json"])(
    "%s in the working directory is read when --config is absent",
    async (name) => {
      const dir = folder();
      const text = name.endsWith(".json") ? '{ "clock": "virtual", "seed": 7 }' : "clock: virtual\nseed: 7\n";
      writeFileSync(join(dir, name), text);
      const parsed = await parseServeArgs([], {}, dir);
      if (parsed.kind !== "settings") throw new Error(JSON.stringify(parsed));
      expect(parsed.settings.options).toMatchObject({ clock: "virtual", seed: 7 });
      expect(parsed.settings.config).toEqual({ file: join(dir, name), discovered: true });
    },
  );

  test("--config wins over a file in the working directory, and the variable too", async () => {
    const dir = folder();
    writeFileSync(join(dir, "airtime-harness.config.yaml"), "seed: 1\n");
    const named = join(dir, "other.yaml");
    writeFileSync(named, "seed: 2\n");
    const byFlag = await parseServeArgs(["--config", named], {}, dir);
    expect(byFlag.kind === "settings" && byFlag.settings.options.seed).toBe(2);
    const byEnv = await parseServeArgs([], { AIRTIME_SIM_CONFIG: named }, dir);
    expect(byEnv.kind === "settings" && byEnv.settings.config).toEqual({ file: named, discovered: false });
  });

  test("both a .yaml and a .json is an error naming both", async () => {
    const dir = folder();
    writeFileSync(join(dir, "airtime-harness.config.yaml"), "seed: 1\n");
    writeFileSync(join(dir, "airtime-harness.config.json"), "{}");
    const parsed = await parseServeArgs([], {}, dir);
    expect(parsed.kind === "error" && parsed.message).toMatch(/both airtime-harness\.config\.yaml and .*\.json/);
  });

  test("serve's banner says which config it found", async () => {
    const dir = folder();
    writeFileSync(join(dir, "airtime-harness.config.yaml"), "port: 0\nclock: virtual\n");
    const server = cliIn(dir, ["serve", "--quiet"]);
    const printed = await server.waitFor(/config: (.*)\n/, 20_000);
    expect(printed.kind === "matched" && printed.match[1]).toBe(
      `${join(dir, "airtime-harness.config.yaml")} (found in the working directory)`,
    );
  });
});

describe("airtime-harness init", () => {
  test("writes a commented config and an example scenario that serve starts with", async () => {
    const dir = folder();
    const init = cliIn(dir, ["init"]);
    expect(await init.exited, init.output()).toBe(0);
    const config = readFileSync(join(dir, "airtime-harness.config.yaml"), "utf8");
    expect(config).toMatch(/^# /m);
    expect(existsSync(join(dir, "scenarios/example.yaml"))).toBe(true);
    expect(init.output()).toContain("airtime-harness.config.yaml");

    const parsed = await parseServeArgs([], {}, dir);
    if (parsed.kind !== "settings") throw new Error(JSON.stringify(parsed));
    const sim = await createSimulator({ ...parsed.settings.options, clock: "virtual" });
    try {
      const res = await fetch(`${await sim.listen()}/_sim/scenarios`, {
        headers: { authorization: `Bearer ${sim.adminToken}` },
      });
      const listing = (await res.json()) as { loaded: { name: string }[] };
      expect(listing.loaded.map((s) => s.name)).toContain("example");
    } finally {
      await sim.close();
    }
  });

  test("refuses to overwrite, and writes nothing", async () => {
    const dir = folder();
    writeFileSync(join(dir, "airtime-harness.config.yaml"), "seed: 1\n");
    const init = cliIn(dir, ["init"]);
    expect(await init.exited).toBe(2);
    expect(init.output()).toContain("airtime-harness.config.yaml exists");
    expect(readFileSync(join(dir, "airtime-harness.config.yaml"), "utf8")).toBe("seed: 1\n");
    expect(existsSync(join(dir, "scenarios/example.yaml"))).toBe(false);
  });
});
