import { type ChildProcess, execSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { codeBlocks, section } from "../support/markdown.ts";

// The action is run the way a runner would run it, minus GitHub: its inputs
// substituted into `${{ inputs.x }}`, its `run:` script given to bash with the
// variables GitHub provides, against a real simulator on a real port.
const ROOT = resolve(import.meta.dirname, "../..");
const BIN = resolve(ROOT, "bin/airtime-harness.js");
const TOKEN = "ci-action-token-0001";

interface Step {
  if?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync("action.yml", "utf8")) as Action;

function substituteInputs(text: string, inputs: Record<string, string>, actionPath = ROOT): string {
  return text
    .replace(/\$\{\{\s*github\.action_path\s*\}\}/g, actionPath)
    .replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
      const value = inputs[name];
      if (value === undefined) throw new Error(`action.yml uses an undeclared input: ${name}`);
      return value;
    });
}

/** A step's `if:`, of the one form action.yml uses (`inputs.NAME == ''`); no `if:` is true. */
function stepRuns(step: Step, inputs: Record<string, string>): boolean {
  if (step.if === undefined) return true;
  const match = /^inputs\.([\w-]+) == ''$/.exec(step.if.trim());
  if (match === null) throw new Error(`an if: this test cannot evaluate: ${step.if}`);
  return inputs[match[1] as string] === "";
}

/** Runs the action's `run:` steps as a runner would, in a fresh workspace; returns the workspace. */
function runAction(inputs: Record<string, string>, actionPath: string): string {
  const workspace = mkdtempSync(join(tmpdir(), "airtime-action-"));
  const runnerTemp = mkdtempSync(join(tmpdir(), "airtime-runner-"));
  for (const step of action.runs.steps.filter((s) => s.run !== undefined && stepRuns(s, inputs))) {
    const env: Record<string, string> = {
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: actionPath,
      RUNNER_TEMP: runnerTemp,
      CI: "true",
    };
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = substituteInputs(value, inputs, actionPath);
    const result = runScript(substituteInputs(step.run as string, inputs, actionPath), env, workspace);
    expect(result.status, result.stderr + result.stdout).toBe(0);
  }
  return workspace;
}

/** The action's inputs as a quick run against the test's simulator gives them: defaults, then `overrides`. */
function quickRunInputs(overrides: Record<string, string> = {}): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) inputs[name] = input.default ?? "";
  return { ...inputs, target, token: TOKEN, runs: "3", args: "--property auth --quiet", ...overrides };
}

let server: ChildProcess;
let target = "";
beforeAll(async () => {
  server = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
    env: { ...process.env, AIRTIME_SIM_DEMO_TOKEN: TOKEN },
  });
  target = await new Promise<string>((done, fail) => {
    let out = "";
    server.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) done(match[1]);
    });
    server.once("exit", (code) => fail(new Error(`serve exited ${code}`)));
  });
});
afterAll(() => {
  server.kill("SIGKILL");
});

function runScript(script: string, env: Record<string, string>, cwd: string) {
  return spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
}

function expectJUnitWithTestcases(path: string) {
  const xml = readFileSync(path, "utf8");
  expect(xml).toMatch(/^<\?xml /);
  expect(xml).toMatch(/<testsuites[\s>]/);
  expect(xml).toMatch(/<\/testsuites>\s*$/);
  expect((xml.match(/<testcase /g) ?? []).length).toBeGreaterThan(0);
}

describe("action.yml", () => {
  test("is a composite action whose steps run the harness and upload its reports", async () => {
    expect(action.runs.using).toBe("composite");
    expect(action.inputs.target?.required).toBe(true);
    expect(action.inputs.token?.required).toBe(true);
    const inputs = quickRunInputs({ command: `${process.execPath} ${BIN}` });
    const workspace = runAction(inputs, ROOT);
    expectJUnitWithTestcases(join(workspace, inputs["report-dir"] as string, "contract.xml"));
    expect(readFileSync(join(workspace, inputs["report-dir"] as string, "contract.html"), "utf8")).toContain("<html");

    const upload = action.runs.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    const paths = substituteInputs(upload?.with?.path ?? "", inputs)
      .trim()
      .split("\n");
    expect(paths).toEqual([`${inputs["report-dir"]}/contract.xml`, `${inputs["report-dir"]}/contract.html`]);
  }, 120_000);

  test("by default installs, builds and runs the CLI of its own checkout, with no registry copy", () => {
    // The repository's files as `uses: owner/repo@ref` checks them out: no node_modules, no dist.
    const checkout = mkdtempSync(join(tmpdir(), "airtime-action-checkout-"));
    execSync(
      `git ls-files -z --cached --others --exclude-standard | tar -c --no-recursion --null -T - | tar -x -C ${JSON.stringify(checkout)}`,
      { cwd: ROOT },
    );
    const inputs = quickRunInputs();
    expect(inputs.command).toBe("");
    const workspace = runAction(inputs, checkout);
    expectJUnitWithTestcases(join(workspace, inputs["report-dir"] as string, "contract.xml"));
  }, 900_000);
});

interface GitLabJob {
  variables: Record<string, string>;
  script: string[];
  artifacts: { paths: string[]; reports: { junit: string } };
}

describe("the GitLab CI snippet in docs/contract-harness.md", () => {
  test("runs its script lines and produces the JUnit report it declares", () => {
    const doc = readFileSync("docs/contract-harness.md", "utf8");
    const yamlBlocks = codeBlocks(section(doc, "gitlab-ci")).filter((block) => block.language === "yaml");
    expect(yamlBlocks).toHaveLength(1);
    const jobs = parse(yamlBlocks[0]?.code ?? "") as Record<string, GitLabJob>;
    const job = jobs["airtime-contract"] as GitLabJob;
    const projectDir = mkdtempSync(join(tmpdir(), "airtime-gitlab-"));
    // GitLab exports the job's variables, then CI/CD variables override them.
    const env = {
      ...job.variables,
      AIRTIME_HARNESS: `${process.execPath} ${BIN}`,
      AIRTIME_RUNS: "3",
      AIRTIME_TARGET: target,
      AIRTIME_TOKEN: TOKEN,
      CI_PROJECT_DIR: projectDir,
    };
    const result = runScript(job.script.join("\n"), env, projectDir);
    expect(result.status, result.stderr + result.stdout).toBe(0);
    expect(job.artifacts.paths).toContain("reports/");
    expectJUnitWithTestcases(join(projectDir, job.artifacts.reports.junit));
  }, 180_000);
});
