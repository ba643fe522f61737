/**
 * `npm run spec:generate` writes every file of `SPEC_DOCUMENTS` under
 * `spec/`; `npm run spec:check` (`--check`) renders them in memory and exits
 * 1 when a committed file is missing or differs, naming the file and the
 * first differing line. `--root DIR` works on another copy of the project.
 */
import { fileURLToPath } from "node:url";
import { checkSpecDocuments, describeStaleFile, writeSpecDocuments } from "../src/contract/openapi/spec-sync.ts";
import { SPEC_DOCUMENTS, type SpecDocument } from "./spec-documents.ts";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

const USAGE = "usage: generate-spec [--check] [--root DIR]";

export async function generateSpec(
  args: readonly string[],
  documents: readonly SpecDocument[] = SPEC_DOCUMENTS,
): Promise<number> {
  let check = false;
  let root = PROJECT_ROOT;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--check") check = true;
    else if (arg === "--root" && args[i + 1] !== undefined) root = args[++i]!;
    else {
      console.error(`generate-spec: unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
      return 2;
    }
  }
  if (documents.length === 0) {
    console.error("generate-spec: SPEC_DOCUMENTS is empty");
    return 1;
  }

  if (!check) {
    const results = await writeSpecDocuments(root, documents);
    for (const result of results) {
      if (result.kind === "failed") console.error(`failed ${result.file}: ${result.error}`);
      else console.log(`${result.kind === "written" ? "wrote" : "unchanged"} ${result.file}`);
    }
    return results.some((result) => result.kind === "failed") ? 1 : 0;
  }

  const states = await checkSpecDocuments(root, documents);
  const stale = states.filter((state) => state.kind !== "up_to_date");
  if (stale.length === 0) {
    console.log(`spec:check: ${states.length} generated file(s) up to date`);
    return 0;
  }
  console.error(`spec:check: ${stale.length} of ${states.length} generated file(s) out of date\n`);
  for (const state of stale) console.error(`${describeStaleFile(state)}\n`);
  if (stale.some((state) => state.kind !== "failed")) {
    console.error("The schemas changed but spec/ was not regenerated: run npm run spec:generate and commit spec/.");
  }
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await generateSpec(process.argv.slice(2));
}
