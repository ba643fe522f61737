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

/** A one-rule scenario around the given rule body (YAML lines indented under `- `). */
function oneRule(rule: string): string {
  return `name: broken\ndescription: a broken scenario\nrules:\n  - name: only\n${rule
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")}\n`;
}

const BAD_FILES: readonly {
  readonly case: string;
  readonly text: string;
  readonly path: string;
  readonly message: string;
}[] = [
  {
    case: "no name",
    text: "description: d\nrules:\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "name",
    message: "is required",
  },
  {
    case: "a name with spaces",
    text: oneRule("effects: {stuckPending: true}").replace("name: broken", "name: Flaky Gateway!"),
    path: "name",
    message: "must be 1–64 letters",
  },
  { case: "no rules", text: "name: x\ndescription: d\nrules: []\n", path: "rules", message: ">=1" },
  {
    case: "an unknown top-level key",
    text: "name: x\ndescription: d\nrulez: []\nrules:\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "(root)",
    message: 'Unrecognized key: "rulez"',
  },
  { case: "a list instead of a scenario", text: "- name: x\n", path: "(root)", message: "expected object" },
  {
    case: "an HTTP status not offered",
    text: oneRule("effects:\n  httpError: {status: 404, when: before_commit}"),
    path: "rules[0].effects.httpError.status",
    message: "must be 429, 500, 502 or 503",
  },
  {
    case: "an httpError without when",
    text: oneRule("effects:\n  httpError: {status: 503}"),
    path: "rules[0].effects.httpError.when",
    message: "is required: before_commit",
  },
  {
    case: "Retry-After on a 500",
    text: oneRule("effects:\n  httpError: {status: 500, retryAfter: 5, when: before_commit}"),
    path: "rules[0].effects.httpError.retryAfter",
    message: "only sent with 429 or 503",
  },
  {
    case: "a latency that is no duration",
    text: oneRule("effects: {latency: soon}"),
    path: "rules[0].effects.latency",
    message: '"soon" is not a duration',
  },
  {
    case: "a number as latency",
    text: oneRule("effects: {latency: 250}"),
    path: "rules[0].effects.latency",
    message: "must be a timing",
  },
  {
    case: "a uniform range upside down",
    text: oneRule("effects: {latency: {kind: uniform, minMs: 500, maxMs: 100}}"),
    path: "rules[0].effects.latency.maxMs",
    message: "minMs must not exceed maxMs",
  },
  {
    case: "an unknown timing kind",
    text: oneRule("effects: {latency: {kind: gaussian, ms: 5}}"),
    path: "rules[0].effects.latency.kind",
    message: "Invalid discriminator value",
  },
  {
    case: "an unknown account matcher",
    text: oneRule("match: {account: {exakt: '0712345678'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account",
    message: "must be one of {exact: NUMBER}, {prefix: DIGITS}, {regex: PATTERN}",
  },
  {
    case: "an exact account that is no Kenyan mobile",
    text: oneRule("match: {account: {exact: '12345'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account.exact",
    message: "must be a Kenyan mobile number",
  },
  {
    case: "a prefix with letters",
    text: oneRule("match: {account: {prefix: '07x'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account.prefix",
    message: "must be digits",
  },
  {
    case: "a reference pattern that does not compile",
    text: oneRule("match: {reference: '(['}\neffects: {stuckPending: true}"),
    path: "rules[0].match.reference",
    message: "is not a valid regular expression",
  },
  {
    case: "attempt and firstN together",
    text: oneRule("match: {attempt: 2, firstN: 3}\neffects: {stuckPending: true}"),
    path: "rules[0].match.firstN",
    message: "attempt and firstN cannot be combined",
  },
  {
    case: "a probability above 1",
    text: oneRule("match: {probability: 1.5}\neffects: {stuckPending: true}"),
    path: "rules[0].match.probability",
    message: "<=1",
  },
  {
    case: "an amount range upside down",
    text: oneRule("match: {amount: {min: 500, max: 100}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.amount.max",
    message: "min must not be greater than max",
  },
  {
    case: "an unknown service",
    text: oneRule("match: {service: vodafone}\neffects: {stuckPending: true}"),
    path: "rules[0].match.service",
    message: 'expected one of "safaricom"|"airtel"',
  },
  {
    case: "a header matcher without a value",
    text: oneRule("match: {header: {name: X-Test}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.header",
    message: "needs exactly one of equals or matches",
  },
  { case: "no effects", text: oneRule("effects: {}"), path: "rules[0].effects", message: "needs at least one effect" },
  {
    case: "a misspelt effect",
    text: oneRule("effects: {latnecy: 2s}"),
    path: "rules[0].effects",
    message: 'Unrecognized key: "latnecy"',
  },
  {
    case: "two outcomes",
    text: oneRule("effects: {outcome: {status: 20}, stuckPending: true}"),
    path: "rules[0].effects.stuckPending",
    message: "cannot be combined with outcome",
  },
  {
    case: "a reversal of a stuck order",
    text: oneRule("effects: {stuckPending: true, reverseAfter: 5s}"),
    path: "rules[0].effects.reverseAfter",
    message: "only a successful order can be reversed",
  },
  {
    case: "an error and a drop at one point",
    text: oneRule("effects:\n  httpError: {status: 503, when: after_commit}\n  dropResponse: {when: after_commit}"),
    path: "rules[0].effects.dropResponse.when",
    message: "a response can fail only one way",
  },
  {
    case: "a status the table lacks",
    text: oneRule("effects: {outcome: {status: 99}}"),
    path: "rules[0].effects.outcome.status",
    message: "status 99 is not in the status table",
  },
  {
    case: "an outcome of 0",
    text: oneRule("effects: {outcome: {status: 0}}"),
    path: "rules[0].effects.outcome.status",
    message: "use stuckPending: true instead",
  },
  {
    case: "a path leaving a final status",
    text: oneRule("effects:\n  path:\n    - {status: 20, after: 1s}\n    - {status: 3, after: 1s}"),
    path: "rules[0].effects.path[1].status",
    message: "3 cannot follow 20",
  },
  {
    case: "a reversal of a failure",
    text: oneRule("effects: {outcome: {status: 2}, reverseAfter: 5s}"),
    path: "rules[0].effects.outcome.status",
    message: "status 2 is not a success",
  },
  {
    case: "an empty webhook effect",
    text: oneRule("effects: {webhook: {}}"),
    path: "rules[0].effects.webhook",
    message: "needs at least one of delay, duplicate",
  },
  {
    case: "zero duplicates",
    text: oneRule("effects: {webhook: {duplicate: 0}}"),
    path: "rules[0].effects.webhook.duplicate",
    message: ">=1",
  },
  {
    case: "two rules with one name",
    text: "name: x\ndescription: d\nrules:\n  - {name: a, effects: {stuckPending: true}}\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "rules[1].name",
    message: "duplicate rule name 'a' (also rules[0])",
  },
  { case: "broken YAML", text: "name: x\ndescription: [unclosed\n", path: "(yaml)", message: "" },
  {
    case: "a YAML key twice",
    text: "name: x\nname: y\ndescription: d\nrules: []\n",
    path: "(yaml)",
    message: "Map keys must be unique",
  },
];

describe("a bad scenario file is rejected with the path inside it and what is wrong", () => {
  test.each(BAD_FILES)("$case → $path", ({ text, path, message }) => {
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
      /--scenario-for acme: flakey-gateway: no scenario named 'flakey-gateway' \(shipped: .*flaky-gateway/,
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
