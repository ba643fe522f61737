/**
 * Every error names the next step: a typo gets its likely meaning, a file's
 * parse error speaks its own format with line and column, a taken port
 * names `--port 0`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { runCli } from "../support/processes.ts";

const dir = mkdtempSync(join(tmpdir(), "next-step-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function serveError(args: string[]): Promise<string> {
  const parsed = await parseServeArgs(args, {});
  if (parsed.kind !== "error") throw new Error(`expected an error, got ${parsed.kind}`);
  return parsed.message;
}

async function run(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const cli = runCli(args);
  return { code: await cli.exited, output: cli.output() };
}

describe("did you mean", () => {
  test("a mistyped command", async () => {
    const { code, output } = await run(["serv"]);
    expect(code).toBe(2);
    expect(output).toContain("unknown command 'serv'; did you mean 'serve'?");
  });

  test("a mistyped flag", async () => {
    expect(await serveError(["--prot", "4010"])).toBe("unknown option --prot; did you mean --port?");
  });

  test("an unknown flag far from any says so without a guess", async () => {
    expect(await serveError(["--frobnicate"])).toBe("unknown option --frobnicate");
  });

  test("a mistyped config key, at any depth", async () => {
    const message = await serveError(["--config", file("typo.yaml", "clok: virtual\nwebhooks: { shedule: '0' }\n")]);
    expect(message).toContain("clok: not a config key; did you mean clock?");
    expect(message).toContain("webhooks.shedule: not a config key; did you mean schedule?");
  });

  test("a mistyped scenario name", async () => {
    await expect(createSimulator({ clock: "virtual", scenarios: { active: ["flaky-gatway"] } })).rejects.toThrow(
      "did you mean 'flaky-gateway'?",
    );
  });
});

describe("a file's own format, with line and column", () => {
  test("a broken JSON config is reported as JSON", async () => {
    const message = await serveError(["--config", file("broken.json", '{\n  "clock": "virtual",\n  "seed": 1,\n}\n')]);
    expect(message).toMatch(/broken\.json: invalid config\n {2}not valid JSON at line 4, column 1: /);
    expect(message).not.toContain("YAML");
  });

  test("a broken YAML config names its line and column", async () => {
    const message = await serveError(["--config", file("broken.yaml", "clock: virtual\nseed: [1\n")]);
    expect(message).toMatch(/not valid YAML at line \d+, column \d+/);
  });

  test("a YAML error in a scenario file keeps its line when loaded through serve --scenario", async () => {
    const scenario = file("bad-scenario.yaml", "name: bad\ndescription: broken\nrules:\n  - name: [x\n");
    const parsed = await parseServeArgs(["--scenario", scenario], {});
    if (parsed.kind !== "settings") throw new Error(JSON.stringify(parsed));
    await expect(createSimulator({ ...parsed.settings.options, clock: "virtual" })).rejects.toThrow(/\(line \d+\)/);
  });
});

describe("a port in use", () => {
  let taken: Server;
  let port = 0;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((done) => taken.close(done));
  });

  test.each([
    ["serve", []],
    ["listen", ["--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]],
  ])("%s names --port 0 and another port", async (command, extra) => {
    const { code, output } = await run([command, "--port", String(port), ...extra]);
    expect(code).toBe(2);
    expect(output).toContain(`port ${port} is in use`);
    expect(output).toContain("--port 0");
  });
});
