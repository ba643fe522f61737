// One linter for the whole tree: ESLint's and typescript-eslint's recommended
// rules. Formatting is Prettier's job (see .prettierrc.json), not ESLint's.
import { readFileSync } from "node:fs";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The dependency arrows point inwards, in the order of `scripts/layers.json`
 * (contract ← domain ← store/time ← features ← http ← redis ← dashboard ←
 * simulator ← harness ← cli): a folder may import its own layer and the ones
 * before it. The Redis adapters are one more fence: only the backend seam,
 * `src/simulator/backend.ts`, imports them. `npm run lint` also fails on any
 * import cycle.
 *
 * One config object per folder, never two: ESLint does not merge the options
 * of a rule two objects set for one file, the later one wins, so a second
 * `no-restricted-imports` would silently lift the first.
 */
const LAYER_ORDER = JSON.parse(readFileSync(new URL("./scripts/layers.json", import.meta.url), "utf8")).order;
const REDIS = "redis";
const BACKEND_SEAM = "src/simulator/backend.ts";

const LAYERS = LAYER_ORDER.flatMap((layer, rank) => {
  const outer = LAYER_ORDER.slice(rank + 1).flat();
  const aboveRedis = LAYER_ORDER.slice(0, rank).flat().includes(REDIS);
  return layer.map((folder) => {
    const files = [`src/${folder}/**`];
    const also = folder === "domain" ? ["express", "node:http"] : [];
    if (!aboveRedis) return { files, outer, also };
    // Above the Redis adapters, only the backend seam may reach them: it gets a config of its own.
    const seam = folder === "simulator" ? [{ files: [BACKEND_SEAM], outer, also }] : [];
    return [{ files, ignores: seam.length > 0 ? [BACKEND_SEAM] : [], outer: [...outer, REDIS], also }, ...seam];
  });
}).flat();

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
 * Size rules: a file holds one component (a closure or class with its
 * private state), split by concept, and 800 lines of code bound it; a
 * function a reader cannot hold in one's head (over 80 lines) is split.
 * Blank lines and comments do not count, so a why-comment never costs room
 * under the limit; `complexity` and `max-depth` sit at the levels the code
 * meets, and hold from there.
 */
const SIZE_RULES = {
  "max-lines": ["error", { max: 800, skipBlankLines: true, skipComments: true }],
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

/**
 * Options are normalised once, like fast-check's qualified parameters: one
 * table of defaults and one frozen settings object, built in a `*-settings.ts`
 * (a command's, or a component's: the simulator's, the Redis adapters', the
 * scenario engine's …) or, for a component whose few options only it reads,
 * in its own function named `…Settings` at the top of its file (the time
 * keeper's, the memory store's …), that the rest of the code reads as it is. Anywhere else in `src/`, a fallback on an options field is an error
 * — `options.x ?? …`, `flags.a?.b ?? …`, or options held by another object,
 * `plan.settings.x ?? …` — so a default cannot be written twice with two
 * values. A reusable component's own option (the HTTP client's timeout, the
 * webhook receiver's verifier) keeps its one default in its parameter list.
 * `input` counts as options on its own (`input.x ?? …`), not as the holder
 * of a function's parts (`input.property.lanes ?? 1` is a property's field).
 */
const NORMALISED = ["src/**"];
const NORMALISERS = ["src/**/*-settings.ts"];
const OPTION_BAGS = "options|opts|settings|config|values|flags|args";
const OPTION_OBJECTS = `/^(input|${OPTION_BAGS})$/`;
const HELD_OPTIONS = `/^(${OPTION_BAGS})$/`;
/** A normaliser may also be a component's own function named `…Settings`, at the top of its file. */
const IN_NORMALISER = "FunctionDeclaration[id.name=/Settings$/] LogicalExpression";
const FALLBACK = `LogicalExpression[operator="??"]:not(${IN_NORMALISER})`;
const OPTION_FALLBACK_RULE = {
  "no-restricted-syntax": [
    "error",
    ...[
      `${FALLBACK} > MemberExpression.left[object.name=${OPTION_OBJECTS}]`,
      `${FALLBACK} > MemberExpression.left[object.object.name=${HELD_OPTIONS}]`,
      `${FALLBACK} > MemberExpression.left[object.property.name=${HELD_OPTIONS}]`,
      `${FALLBACK} > ChainExpression.left > MemberExpression[object.name=${OPTION_OBJECTS}]`,
      `${FALLBACK} > ChainExpression.left > MemberExpression[object.object.name=${HELD_OPTIONS}]`,
      `${FALLBACK} > ChainExpression.left > MemberExpression[object.property.name=${HELD_OPTIONS}]`,
    ].map((selector) => ({
      selector,
      message: "Give this default in its settings table (*-settings.ts, or a …Settings function), not at its use.",
    })),
  ],
};

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
  { files: NORMALISED, ignores: NORMALISERS, rules: OPTION_FALLBACK_RULE },
);
