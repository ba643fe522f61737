/**
 * Writes the generated files of `spec/`, or checks that the committed ones
 * are exactly what the schemas generate. Pure apart from reading and writing
 * the files under `root`, so tests run it against a temporary copy.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * One generated file: its path and how to render its full text. The list of
 * them (`SPEC_DOCUMENTS`) lives in `scripts/spec-documents.ts`, outside
 * `src/contract/`, because rendering them reaches into the HTTP, scenario and
 * simulator layers, which the contract must not depend on.
 */
export interface SpecDocument {
  /** Path relative to the project root, e.g. `spec/openapi.yaml`. */
  readonly file: string;
  readonly render: () => string | Promise<string>;
}

export type SpecFileState =
  | { readonly kind: "up_to_date"; readonly file: string }
  | { readonly kind: "missing"; readonly file: string }
  /** Rendering threw: the schemas cannot produce this file. */
  | { readonly kind: "failed"; readonly file: string; readonly error: string }
  | {
      readonly kind: "differs";
      readonly file: string;
      /** 1-based line of the first difference. */
      readonly line: number;
      readonly committed: string;
      readonly generated: string;
    };

/**
 * Renders every document and compares it with the file under `root`.
 *
 * @example
 * const states = await checkSpecDocuments(process.cwd(), SPEC_DOCUMENTS);
 * states.filter((s) => s.kind !== "up_to_date"); // the files `spec:generate` would change
 */
export async function checkSpecDocuments(root: string, documents: readonly SpecDocument[]): Promise<SpecFileState[]> {
  const states: SpecFileState[] = [];
  for (const document of documents) {
    const generated = await renderOrError(document);
    if (typeof generated !== "string") {
      states.push({ kind: "failed", file: document.file, error: generated.error });
      continue;
    }
    const committed = await readIfExists(join(root, document.file));
    states.push(compare(document.file, committed, generated));
  }
  return states;
}

export type SpecWriteResult =
  | { readonly kind: "written"; readonly file: string }
  | { readonly kind: "unchanged"; readonly file: string }
  | { readonly kind: "failed"; readonly file: string; readonly error: string };

/**
 * Renders every document and writes it under `root`. A document that fails
 * to render is reported and left as it is; the others are still written.
 *
 * @example
 * await writeSpecDocuments(process.cwd(), SPEC_DOCUMENTS);
 * // [{ kind: "written", file: "spec/openapi.yaml" }, { kind: "unchanged", file: "spec/admin.openapi.yaml" }]
 */
export async function writeSpecDocuments(root: string, documents: readonly SpecDocument[]): Promise<SpecWriteResult[]> {
  const results: SpecWriteResult[] = [];
  for (const document of documents) {
    const path = join(root, document.file);
    const generated = await renderOrError(document);
    if (typeof generated !== "string") {
      results.push({ kind: "failed", file: document.file, error: generated.error });
      continue;
    }
    if ((await readIfExists(path)) === generated) {
      results.push({ kind: "unchanged", file: document.file });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, generated, "utf8");
    results.push({ kind: "written", file: document.file });
  }
  return results;
}

async function renderOrError(document: SpecDocument): Promise<string | { error: string }> {
  try {
    return await document.render();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** One paragraph per stale file, for the console. */
export function describeStaleFile(state: SpecFileState): string {
  switch (state.kind) {
    case "up_to_date":
      return `${state.file}: up to date`;
    case "missing":
      return `${state.file}: missing (it is generated from the schemas)`;
    case "failed":
      return `${state.file}: cannot be generated: ${state.error}`;
    case "differs":
      return [
        `${state.file}: differs from what the schemas generate, first at line ${state.line}:`,
        `  - committed: ${state.committed}`,
        `  + generated: ${state.generated}`,
      ].join("\n");
    default: {
      const unreachable: never = state;
      throw new Error(`unknown state ${JSON.stringify(unreachable)}`);
    }
  }
}

function compare(file: string, committed: string | undefined, generated: string): SpecFileState {
  if (committed === undefined) return { kind: "missing", file };
  if (committed === generated) return { kind: "up_to_date", file };
  const a = committed.split("\n");
  const b = generated.split("\n");
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return {
    kind: "differs",
    file,
    line: index + 1,
    committed: clip(a[index] ?? "(end of file)"),
    generated: clip(b[index] ?? "(end of file)"),
  };
}

function clip(line: string): string {
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
