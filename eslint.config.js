// One linter for the whole tree: ESLint's and typescript-eslint's recommended
// rules. Formatting is Prettier's job (see .prettierrc.json), not ESLint's.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The dependency arrows point inwards (contract ← domain ← store/time ←
 * features ← http ← redis ← simulator ← harness ← cli): a folder may not import the
 * folders named for it here. `npm run lint` also fails on any import cycle.
 */
const LAYERS = [
  {
    files: ["src/contract/**"],
    outer: ["domain", "store", "time", "redis", "scenarios", "webhooks", "http", "simulator", "harness", "cli"],
  },
  {
    files: ["src/domain/**"],
    outer: ["store", "time", "redis", "scenarios", "webhooks", "http", "simulator", "harness", "cli"],
    also: ["express", "node:http"],
  },
  {
    files: ["src/store/**", "src/time/**"],
    outer: ["redis", "scenarios", "webhooks", "http", "simulator", "harness", "cli"],
  },
  // Every Redis adapter, for the ports of the domain, the HTTP journal and the webhooks' delivery log.
  { files: ["src/redis/**"], outer: ["scenarios", "dashboard", "simulator", "harness", "cli"] },
  { files: ["src/http/**"], outer: ["redis", "scenarios", "webhooks", "simulator", "harness", "cli"] },
  // The backend seam is the one file that chooses Redis: nothing else in src/ imports a Redis adapter.
  { files: ["src/simulator/backend.ts"], outer: ["cli"] },
  { files: ["src/simulator/**", "src/harness/**"], ignores: ["src/simulator/backend.ts"], outer: ["redis", "cli"] },
  { files: ["src/dashboard/**"], outer: ["redis", "harness", "cli"] },
];

function layerRule({ files, ignores = [], outer, also = [] }) {
  return {
    files,
    ignores,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: also.map((name) => ({ name, message: "The domain stays free of HTTP frameworks." })),
          patterns: [
            {
              regex: `^(\\.\\./)+(${outer.join("|")})/`,
              message: "Dependencies point inwards: this folder may not import that one (see eslint.config.js).",
            },
          ],
        },
      ],
    },
  };
}

/**
 * Size rules: a file or function a reader cannot hold in one's head is
 * split. Blank lines and comments do not count, so a why-comment never
 * costs room under the limit; `complexity` and `max-depth` sit at the
 * levels the code meets, and hold from there.
 */
const SIZE_RULES = {
  "max-lines": ["error", { max: 400, skipBlankLines: true, skipComments: true }],
  "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
  complexity: ["error", 31],
  "max-depth": ["error", 5],
};

/**
 * Declarative tables: route declarations, schemas, flag tables, examples
 * and the generators' tables of breakages read as data, one entry after
 * another, so their length is not a function's length.
 */
const DECLARATIVE_TABLES = ["src/contract/routes/**", "src/cli/flag-table.ts", "src/contract/arbitraries.ts"];

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "spec/", "reports/", "coverage/", ".tmp/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Control characters are exactly what the reference and key patterns reject.
      "no-control-regex": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  { files: ["src/**/*.ts"], rules: SIZE_RULES },
  { files: DECLARATIVE_TABLES, rules: { "max-lines-per-function": "off" } },
  // The dashboard's front end runs in the browser, and reaches the simulator only over HTTP.
  { files: ["ui/**"], languageOptions: { globals: { ...globals.browser } } },
  ...LAYERS.map(layerRule),
  {
    // Features reach the simulator and the HTTP layer only through the plugin port.
    files: ["src/scenarios/**", "src/webhooks/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+(harness|cli|http|redis)/|^(\\.\\./)+simulator/(?!plugin\\.ts$)",
              message:
                "Features reach the simulator and the HTTP layer only through simulator/plugin.ts, and never the CLI, the harness or a Redis adapter.",
            },
          ],
        },
      ],
    },
  },
);
