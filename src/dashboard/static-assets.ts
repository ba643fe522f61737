/**
 * The dashboard's built files (`dist/ui`, made by `npm run build`), served
 * from a list taken once at start: only files the build wrote can be asked
 * for, whatever the path says.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { PACKAGE_ROOT } from "../package-root.ts";

const UI_DIR = join(PACKAGE_ROOT, "dist", "ui");

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

export interface StaticAsset {
  readonly body: Buffer;
  readonly type: string;
  /** Hashed asset names never change content, so they may be cached for good. */
  readonly immutable: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Assets by their path under `/_sim/ui/` (`index.html`, `assets/index-3f2a.js`); empty when not built. */
export function loadStaticAssets(dir: string = UI_DIR): ReadonlyMap<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  if (!existsSync(dir)) return assets;
  for (const file of filesUnder(dir)) {
    const name = relative(dir, file).split(sep).join("/");
    assets.set(name, {
      body: readFileSync(file),
      type: TYPES[extname(file)] ?? "application/octet-stream",
      immutable: name.startsWith("assets/"),
    });
  }
  return assets;
}
