/**
 * `airtime-harness contract`: flags, --help (every check with its
 * description), exit codes and report files.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { contract, contractUsage, parseContractArgs } from "../../src/cli/contract.ts";
import { CHECK_NAMES, CHECKS } from "../../src/harness/checks.ts";
import { type BrokenTarget, startBrokenTarget } from "./broken-targets.ts";

const run = promisify(execFile);
const targets: BrokenTarget[] = [];
const dirs: string[] = [];

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  for (const target of targets) await target.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("contract --help", () => {
  test("lists every check with its one-line description, through the real binary", async () => {
    const { stdout } = await run(process.execPath, [resolve("bin/airtime-harness.js"), "contract", "--help"]);
    for (const name of CHECK_NAMES) {
      expect(stdout).toContain(name);
      expect(stdout).toContain(CHECKS[name].description);
    }
    expect(stdout).toBe(`${contractUsage()}\n`);
  });
});

describe("parseContractArgs", () => {
  test("reads every kind of flag", async () => {
    const parsed = await parseContractArgs([
      "--target",
      "http://127.0.0.1:1",
      "--token",
      "t0ken-value",
      "--checks",
      "idempotent_replay, no_double_charge",
      "--exclude-checks",
      "never_server_error",
      "--runs",
      "7",
      "--seed",
      "42",
      "--budget",
      "150.5",
      "--final-timeout",
      "2s",
      "--property",
      "model",
    ]);
    expect(parsed).toEqual({
      ok: true,
      options: {
        target: "http://127.0.0.1:1",
        token: "t0ken-value",
        checks: ["idempotent_replay", "no_double_charge"],
        excludeChecks: ["never_server_error"],
        runs: 7,
        seed: 42,
        budget: 150.5,
        finalTimeoutMs: 2000,
        properties: ["model"],
      },
    });
  });

  test("takes the token from AIRTIME_TOKEN when --token is absent", async () => {
    const parsed = await parseContractArgs(["--target", "http://x"], { AIRTIME_TOKEN: "from-env-token" });
    expect(parsed.ok && parsed.options.token).toBe("from-env-token");
  });

  test.each([
    [["--target", "http://x"], /--target needs --token/],
    [["--runs", "0"], /--runs must be a positive integer/],
    [["--budget", "-5"], /--budget/],
    [["--timing", "soon"], /--timing/],
    [["--property", "everything"], /unknown property/],
    [["--no-such-flag"], /unknown option --no-such-flag/],
    [["--admin-url", "http://x"], /--admin-url needs --admin-token/],
  ])("rejects %j", async (args, message) => {
    const parsed = await parseContractArgs(args, {});
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});

describe("exit codes and reports", () => {
  test("an unknown check name is a usage error (exit 2), never silently ignored", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await contract(["--checks", "idempotent_replays", "--quiet"])).toBe(2);
    expect(errors.mock.calls.join("\n")).toMatch(/unknown check\(s\): idempotent_replays/);
  });

  test("a failing check exits 1 and writes the failure, its steps and its replay into JUnit and JSON", async () => {
    const target = await startBrokenTarget("missing_id_on_success");
    targets.push(target);
    const dir = await mkdtemp(join(tmpdir(), "harness-cli-"));
    dirs.push(dir);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.join(" "));
    });
    const { options } = target;
    const code = await contract([
      "--target",
      options.target as string,
      "--token",
      options.token as string,
      "--admin-url",
      options.adminUrl as string,
      "--admin-token",
      options.adminToken as string,
      "--timing",
      "2s",
      "--property",
      "model",
      "--runs",
      "20",
      "--seed",
      "5",
      "--max-failures",
      "1",
      "--quiet",
      "--junit",
      join(dir, "junit.xml"),
      "--json",
      join(dir, "report.json"),
    ]);
    expect(code).toBe(1);
    const printed = lines.join("\n");
    expect(printed).toMatch(/✗ response_schema_conformance +FAILED/);
    expect(printed).toMatch(
      /replay: airtime-harness contract --target \S+ --token \$AIRTIME_TOKEN .*--seed 5 --path \S+/,
    );
    expect(printed).toContain("curl -sS -i -X POST");
    expect(printed).not.toContain(options.adminToken as string);
    const junit = await readFile(join(dir, "junit.xml"), "utf8");
    expect(junit).toMatch(/<failure message="[^"]*" type="response_schema_conformance">/);
    expect(junit).toContain('failures="1"');
    const json = JSON.parse(await readFile(join(dir, "report.json"), "utf8"));
    expect(json.version).toBe(1);
    expect(json.ok).toBe(false);
    expect(json.checks.find((c: { name: string }) => c.name === "response_schema_conformance").status).toBe("failed");
  });
});

describe("profiles on the command line", () => {
  test("--provider reads a provider profile; a bad one names the file, line, column and field", async () => {
    const dir = await mkdtemp(join(tmpdir(), "harness-provider-"));
    dirs.push(dir);
    const file = join(dir, "acme.yaml");
    await writeFile(file, "profile: 1\nbodies:\n  error: { code: /error/code }\nmoney: string\n");
    const parsed = await parseContractArgs(["--profile", "interface", "--provider", file]);
    expect(parsed.ok && parsed.options.provider).toEqual({
      profile: 1,
      bodies: { error: { code: "/error/code" } },
      money: "string",
    });
    expect(parsed.ok && parsed.notices).toBeUndefined();
    await writeFile(file, "profile: 1\nmoney: euros\n");
    expect(await parseContractArgs(["--provider", file])).toEqual({
      ok: false,
      error: `--provider:\n${file}:2:8: money: expected one of number|string`,
    });
    expect(await parseContractArgs(["--provider", file, "--mapping", file])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/cannot be combined/),
    });
  });

  test("--profile and --mapping are read, a bad profile or mapping is a usage error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "harness-mapping-"));
    dirs.push(dir);
    const file = join(dir, "mapping.json");
    await writeFile(file, JSON.stringify({ order: { id: "/data/id" }, balance: "/data/amount" }));
    const parsed = await parseContractArgs(["--profile", "interface", "--mapping", file]);
    expect(parsed.ok && parsed.options.profile).toBe("interface");
    // The deprecated mapping is read as the provider profile it is part of, with one deprecation line.
    expect(parsed.ok && parsed.options.provider?.bodies).toEqual({
      order: { id: "/data/id" },
      balance: { amount: "/data/amount" },
    });
    expect(parsed.ok && parsed.notices).toEqual([expect.stringMatching(/^--mapping is deprecated.*--provider/)]);
    expect(await parseContractArgs(["--profile", "lenient"])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--profile/),
    });
    await writeFile(file, JSON.stringify({ balance: "data.amount" }));
    expect(await parseContractArgs(["--mapping", file])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--mapping/),
    });
  });

  test("--list-checks prints every check with the profiles it belongs to", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect(await contract(["--list-checks"])).toBe(0);
    const printed = log.mock.calls.map((call) => String(call[0])).join("\n");
    for (const name of CHECK_NAMES) expect(printed).toContain(name);
    expect(printed).toMatch(/status_code_conformance +\[strict\]/);
    expect(printed).toMatch(/customer_isolation +\[strict, interface\]/);
  });
});

test("--strictness picks the judging rules; --profile, its older name, still works", async () => {
  const strictness = await parseContractArgs(["--strictness", "interface"]);
  expect(strictness.ok && strictness.options.profile).toBe("interface");
  const older = await parseContractArgs(["--profile", "interface"]);
  expect(older.ok && older.options.profile).toBe("interface");
  expect(await parseContractArgs(["--strictness", "lenient"])).toMatchObject({
    ok: false,
    error: expect.stringMatching(/--strictness/),
  });
  expect(contractUsage()).toMatch(/--strictness NAME[\s\S]*--profile NAME\s+the older name of --strictness/);
});
