/**
 * The package's root folder, where `package.json`, `spec/` and `scenarios/`
 * live. The sources sit two folders below it (`src/scenarios/library.ts`) and
 * the build bundles them one folder below it (`dist/*.js`), so the root is the
 * nearest folder up that holds a package.json rather than a fixed `../../`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findPackageRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, "package.json"))) return folder;
    if (dirname(folder) === folder) throw new Error(`no package.json in ${start} or above`);
  }
}

/** Absolute path of the package's root folder. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The version in the package's package.json. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string };
  return manifest.version;
}
