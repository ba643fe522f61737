// The published build: the library and its test helpers
// (`airtime-harness/testing`, and `airtime-harness/vitest`, the only entry
// that imports vitest) as ESM and CommonJS with declarations for each
// (`.d.ts` for `.js`, `.d.cts` for `.cjs`), and the CLI as ESM sharing the
// library's chunks. Dependencies stay external; a runtime import of a
// devDependency fails the build instead of being bundled in silence.
import { defineConfig } from "tsdown";

const shared = {
  platform: "node",
  target: "node20",
  fixedExtension: false,
  deps: { onlyBundle: [] as string[] },
  // No dependency is imported for its side effects; without this an import
  // that only an unused declaration needed (express's Router) would stay in
  // the .d.ts and make every user install @types/express.
  inputOptions: { treeshake: { moduleSideEffects: "no-external" }, checks: { pluginTimings: false } },
} as const;

const LIBRARY = { index: "src/index.ts", testing: "src/testing/index.ts", vitest: "src/testing/vitest.ts" } as const;

// Declarations are built on their own: beside the CLI's JavaScript they would
// keep its imports of express.
const declarations = { ...shared, entry: LIBRARY } as const;

export default defineConfig([
  { ...shared, entry: { ...LIBRARY, cli: "src/cli/main.ts" }, format: "esm", dts: false },
  { ...shared, entry: LIBRARY, format: "cjs", dts: false },
  { ...declarations, format: "esm", dts: { emitDtsOnly: true } },
  { ...declarations, format: "cjs", dts: { emitDtsOnly: true } },
]);
