// The dashboard's front end (ui/), built by `npm run build` into dist/ui and
// served by the simulator at /_sim/ui. Preact: React's component model in a
// few kilobytes, with no runtime to ship beyond it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";
import { parse } from "yaml";

const require = createRequire(import.meta.url);
const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

/**
 * The API reference tab's two files, loaded only when the tab opens: Redoc's
 * standalone bundle (from the package, never a CDN; its source-map comment
 * dropped since the map is not shipped) and the public spec as JSON.
 */
function apiReference(): Plugin {
  return {
    name: "api-reference",
    generateBundle() {
      const redoc = readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8");
      // Its sidebar footer fetches a logo from Redocly's CDN, whatever the options: offline it is a blank image.
      if (!redoc.includes(REDOC_LOGO)) throw new Error(`Redoc no longer loads ${REDOC_LOGO}: check it stays offline`);
      this.emitFile({
        type: "asset",
        fileName: "redoc.standalone.js",
        source: redoc.replace(REDOC_LOGO, BLANK_SVG).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"),
      });
      const spec: unknown = parse(readFileSync(new URL("spec/openapi.yaml", import.meta.url), "utf8"));
      this.emitFile({ type: "asset", fileName: "openapi.json", source: JSON.stringify(spec) });
    },
  };
}

/** The dashboard's own JavaScript, gzipped, may not pass this (the API reference's Redoc loads apart, on demand). */
const JS_BUDGET_GZIP_BYTES = 120 * 1024;

/** Prints the gzipped size of the JavaScript the page loads first, and fails the build over the budget. */
function jsBudget(): Plugin {
  return {
    name: "js-budget",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file) => file.type === "chunk");
      const gzipped = chunks.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0);
      const line = `dashboard JavaScript: ${chunks.length} file(s), ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${JS_BUDGET_GZIP_BYTES / 1024} KB)`;
      if (gzipped > JS_BUDGET_GZIP_BYTES) this.error(line);
      console.log(line);
    },
  };
}

export default defineConfig({
  root: "ui",
  base: "/_sim/ui/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [apiReference(), jsBudget()],
  build: {
    outDir: "../dist/ui",
    emptyOutDir: true,
    // Served from the package, never a CDN: nothing inlined needs a network, and no source maps to ship.
    sourcemap: false,
    reportCompressedSize: true,
  },
});
