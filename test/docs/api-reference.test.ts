/**
 * docs/api.md lists exactly the names src/index.ts exports: a name added to or
 * dropped from the package fails here until the API reference says so.
 */
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import * as api from "../../src/index.ts";
import { tableRows } from "../support/markdown.ts";

const INDEX = new URL("../../src/index.ts", import.meta.url);
const DOC = new URL("../../docs/api.md", import.meta.url);

/** Every name in an `export { … }` or `export type { … }` list, with whether it is type-only. */
function exportedNames(source: string): { name: string; typeOnly: boolean }[] {
  return [...source.matchAll(/^export (type )?\{([^}]*)\}/gm)].flatMap(([, type, list = ""]) =>
    list
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .map((name) => ({ name, typeOnly: type !== undefined })),
  );
}

test("docs/api.md lists each export of src/index.ts once, and nothing else", async () => {
  const exported = exportedNames(await readFile(INDEX, "utf8"));
  // The parse sees every runtime export: nothing reaches the module another way (no `export *`, no declarations).
  expect(
    exported
      .filter((entry) => !entry.typeOnly)
      .map((entry) => entry.name)
      .sort(),
  ).toEqual(Object.keys(api).sort());
  const listed = tableRows(await readFile(DOC, "utf8")).map(([name = ""]) => name.replaceAll("`", "").trim());
  expect(new Set(listed).size).toBe(listed.length);
  expect(listed.sort()).toEqual(exported.map((entry) => entry.name).sort());
});

test("the package API stays small", async () => {
  expect(exportedNames(await readFile(INDEX, "utf8")).length).toBeLessThanOrEqual(60);
});
