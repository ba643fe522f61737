/**
 * Every way a scenario file can be wrong gets a clear error: the file, the
 * path inside it and what is wrong — and a bad set is never half-applied.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createScenarioEngine } from "../../src/scenarios/engine.ts";
import { formatScenarioIssue, parseScenarioText, readScenarioFiles } from "../../src/scenarios/load.ts";
import { ScenarioLoadError } from "../../src/scenarios/options.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { BAD_SCENARIO_FILES, oneRule } from "./bad-scenario-files.ts";

describe("a bad scenario file is rejected with the path inside it and what is wrong", () => {
  test.each(BAD_SCENARIO_FILES)("$case → $path", ({ text, path, message }) => {
    const result = parseScenarioText(text, "qa/broken.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const issue = result.issues.find((candidate) => candidate.path === path);
    expect(issue, `issues were: ${result.issues.map(formatScenarioIssue).join(" | ")}`).toBeDefined();
    expect(issue?.message).toContain(message);
    expect(issue?.file).toBe("qa/broken.yaml");
  });
});

test("an issue prints as `file: path: message` and names the line", () => {
  const result = parseScenarioText(oneRule("effects:\n  httpError: {status: 404, when: before_commit}"), "qa/x.yaml");
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(formatScenarioIssue(result.issues[0]!)).toBe(
    "qa/x.yaml: rules[0].effects.httpError.status: must be 429, 500, 502 or 503 (line 6)",
  );
});

describe("loading a set of files is all or nothing", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "scenario-files-"));
    await writeFile(join(dir, "good.yaml"), oneRule("effects: {stuckPending: true}").replace("broken", "good"));
    await writeFile(join(dir, "bad.yaml"), oneRule("effects: {httpError: {status: 418, when: before_commit}}"));
    await writeFile(join(dir, "same-name.yaml"), oneRule("effects: {stuckPending: true}").replace("broken", "good"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("one bad file fails the whole set, with every issue", async () => {
    const result = await readScenarioFiles([join(dir, "good.yaml"), join(dir, "bad.yaml"), join(dir, "missing.yaml")]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => [issue.file.replace(dir, ""), issue.path])).toEqual([
      ["/bad.yaml", "rules[0].effects.httpError.status"],
      ["/missing.yaml", "(file)"],
    ]);
  });

  test("two files defining one name are an error", async () => {
    const result = await readScenarioFiles([join(dir, "good.yaml"), join(dir, "same-name.yaml")]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.message).toContain("is also defined in");
  });

  test("a simulator asked to activate a bad file does not start", async () => {
    const start = createSimulator({
      clock: "virtual",
      scenarios: { active: [join(dir, "good.yaml"), join(dir, "bad.yaml")] },
    });
    await expect(start).rejects.toBeInstanceOf(ScenarioLoadError);
    await expect(start).rejects.toThrow(/bad\.yaml: rules\[0\]\.effects\.httpError\.status: must be 429/);
  });

  test("an unknown scenario name is refused at start, listing the shipped ones", async () => {
    const start = createSimulator({ clock: "virtual", scenarios: { customers: { acme: ["flakey-gateway"] } } });
    await expect(start).rejects.toThrow(
      /--scenario-for acme: flakey-gateway: no scenario named 'flakey-gateway'; did you mean 'flaky-gateway'\? \(shipped: .*flaky-gateway/,
    );
  });

  test("the magic accounts' name is reserved", () => {
    const reserved = parseScenarioText(
      oneRule("effects: {stuckPending: true}").replace("broken", "magic-accounts"),
      "x",
    );
    expect(reserved.ok).toBe(true);
    if (!reserved.ok) return;
    const engine = createScenarioEngine();
    expect(engine.add([reserved.scenario])).toEqual({ kind: "reserved_name", name: "magic-accounts" });
    expect(engine.list().loaded).toEqual([]);
  });
});
