/**
 * A temporary folder for one test file: made before its tests, removed
 * after them, read through the returned function once the tests run.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function useTempFolder(prefix: string): () => string {
  let folder: string | undefined;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(() => (folder === undefined ? undefined : rm(folder, { recursive: true, force: true })));
  return () => {
    if (folder === undefined) throw new Error("the temporary folder exists only while the tests run");
    return folder;
  };
}
