/**
 * The version in airtime-harness's own package.json, found by walking up
 * from this module: the same code finds it from `src/cli/` under tsx and
 * from a compiled `dist/`, whatever the build's folder layout.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "airtime-harness";

export function packageVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === PACKAGE_NAME && manifest.version !== undefined) return manifest.version;
    } catch {
      // No package.json here (or not ours): look one folder up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${PACKAGE_NAME}`);
    dir = parent;
  }
}
