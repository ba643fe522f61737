import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { generateSpec } from "../../scripts/generate-spec.ts";
import { PUBLIC_SPEC_FILE, renderPublicOpenApiYaml } from "../../src/contract/openapi/public-document.ts";
import { checkSpecDocuments, describeStaleFile, writeSpecDocuments } from "../../src/contract/openapi/spec-sync.ts";
import { SPEC_DOCUMENTS, type SpecDocument } from "../../scripts/spec-documents.ts";

/** The public document alone, so these tests do not depend on the other documents' state. */
const PUBLIC_ONLY: SpecDocument[] = [{ file: PUBLIC_SPEC_FILE, render: () => renderPublicOpenApiYaml() }];

const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(PROJECT_ROOT, "node_modules/.bin/tsx");
const SCRIPT = join(PROJECT_ROOT, "scripts/generate-spec.ts");

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "spec-check-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function runScript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [SCRIPT, ...args], { cwd: PROJECT_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs the script's entry in process, collecting what it prints. */
async function runInProcess(args: string[], documents: readonly SpecDocument[]) {
  const lines: string[] = [];
  const collect = (...parts: unknown[]) => void lines.push(parts.join(" "));
  const log = vi.spyOn(console, "log").mockImplementation(collect);
  const error = vi.spyOn(console, "error").mockImplementation(collect);
  try {
    return { code: await generateSpec(args, documents), output: lines.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe("spec:check in process", () => {
  test("a generated copy is up to date", async () => {
    await writeSpecDocuments(root, PUBLIC_ONLY);
    const states = await checkSpecDocuments(root, PUBLIC_ONLY);
    expect(states).toEqual([{ kind: "up_to_date", file: PUBLIC_SPEC_FILE }]);
    expect(await runInProcess(["--check", "--root", root], PUBLIC_ONLY)).toEqual({
      code: 0,
      output: "spec:check: 1 generated file(s) up to date",
    });
  });

  test("a schema change without regeneration is reported with the file and the first differing line", async () => {
    await writeSpecDocuments(root, PUBLIC_ONLY);
    // The same document rendered from a changed schema: other order limits.
    const changed: SpecDocument = {
      file: PUBLIC_SPEC_FILE,
      render: () => renderPublicOpenApiYaml({ limits: { minAmount: 5, maxAmount: 5_000, currencies: ["KES"] } }),
    };
    const [state] = await checkSpecDocuments(root, [changed]);
    expect(state).toMatchObject({ kind: "differs", file: "spec/openapi.yaml" });
    const message = describeStaleFile(state!);
    expect(message).toContain("spec/openapi.yaml: differs");
    expect(message).toMatch(/first at line \d+/);
    expect(message).toContain("from 10 to 10000");
    expect(message).toContain("from 5 to 5000");

    const run = await runInProcess(["--check", "--root", root], [changed]);
    expect(run.code).toBe(1);
    expect(run.output).toContain("run npm run spec:generate");
  });

  test("a document that cannot be rendered fails both commands, naming it, without stopping the others", async () => {
    const broken: SpecDocument = {
      file: "spec/broken.yaml",
      render: () => {
        throw new Error("Transforms cannot be represented in JSON Schema");
      },
    };
    const generate = await runInProcess(["--root", root], [broken, ...PUBLIC_ONLY]);
    expect(generate.code).toBe(1);
    expect(generate.output).toContain("failed spec/broken.yaml: Transforms cannot be represented");
    expect(generate.output).toMatch(/(wrote|unchanged) spec\/openapi.yaml/);
    const check = await runInProcess(["--check", "--root", root], [broken, ...PUBLIC_ONLY]);
    expect(check.code).toBe(1);
    expect(check.output).toContain("spec/broken.yaml: cannot be generated");
  });

  test("an unknown argument is refused", async () => {
    const run = await runInProcess(["--chek"], PUBLIC_ONLY);
    expect(run.code).toBe(2);
    expect(run.output).toContain("usage: generate-spec");
  });
});

describe("npm run spec:check (the script in its own process)", () => {
  test("exits 1 naming the file when one byte of the spec changed", async () => {
    await writeSpecDocuments(root, SPEC_DOCUMENTS);
    const path = join(root, PUBLIC_SPEC_FILE);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace("maxLength: 255", "maxLength: 256"));
    const result = await runScript("--check", "--root", root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("spec/openapi.yaml: differs");
    expect(result.stderr).toContain("- committed:");
    expect(result.stderr).toContain("maxLength: 256");
    expect(result.stderr).toContain("run npm run spec:generate");
  });

  test("exits 1 when a generated file is missing, and spec:generate brings it back", async () => {
    await writeSpecDocuments(root, SPEC_DOCUMENTS);
    await unlink(join(root, PUBLIC_SPEC_FILE));
    const check = await runScript("--check", "--root", root);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("spec/openapi.yaml: missing");

    const generate = await runInProcess(["--root", root], PUBLIC_ONLY);
    expect(generate).toEqual({ code: 0, output: "wrote spec/openapi.yaml" });
    expect(await readFile(join(root, PUBLIC_SPEC_FILE), "utf8")).toBe(renderPublicOpenApiYaml());
  });
});
