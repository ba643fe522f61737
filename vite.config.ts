// The dashboard's front end (ui/), built by `npm run build` into dist/ui and
// served by the simulator at /_sim/ui. Preact: React's component model in a
// few kilobytes, with no runtime to ship beyond it.
import { defineConfig } from "vite";

export default defineConfig({
  root: "ui",
  base: "/_sim/ui/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../dist/ui",
    emptyOutDir: true,
    // Served from the package, never a CDN: nothing inlined needs a network, and no source maps to ship.
    sourcemap: false,
    reportCompressedSize: true,
  },
});
