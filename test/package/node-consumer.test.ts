/**
 * The packed package in a fresh project with nothing else installed: plain
 * Node ESM and CommonJS with no loader, the `airtime-harness` command, and
 * the files exported by path, on each Node version of the run; the size of
 * that install; and Prism, the optional peer, absent and then added.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Consumer, createConsumer, exec, LTS_NODE, MANIFEST, nodeRuntimes } from "./consumer.ts";
import { CJS_SCRIPT, ESM_SCRIPT, EXPECTED } from "./order-scenario.ts";

const RUNTIMES = await nodeRuntimes();
let consumer: Consumer;

beforeAll(async () => {
  consumer = await createConsumer("node-consumer");
  await consumer.write("order.mjs", ESM_SCRIPT);
  await consumer.write("order.cjs", CJS_SCRIPT);
});

afterAll(() => consumer?.remove());

describe.each(RUNTIMES)("on $name", (runtime) => {
  test("Node ESM imports it with no loader and runs the order scenario", async () => {
    const outcome = await exec(runtime.node, ["order.mjs"], { cwd: consumer.dir });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual(EXPECTED);
  });

  test("CommonJS requires it with no loader and runs the order scenario", async () => {
    const outcome = await exec(runtime.node, ["order.cjs"], { cwd: consumer.dir });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual(EXPECTED);
  });

  test("npx airtime-harness --version prints the package's version", async () => {
    const outcome = await exec("npx", ["--no-install", "airtime-harness", "--version"], {
      cwd: consumer.dir,
      env: runtime.env,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout.trim()).toBe(MANIFEST.version);
  });

  test("npx airtime-harness spec names the package's version, not the project's", async () => {
    // The document reads the version from the package's own manifest; a path relative to the
    // sources pointed outside the bundle, at the consumer's package.json, which has none.
    const outcome = await exec("npx", ["--no-install", "airtime-harness", "spec"], {
      cwd: consumer.dir,
      env: runtime.env,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toContain(`version: ${MANIFEST.version}`);
  });

  test("the command finds the scenarios shipped beside it", async () => {
    const outcome = await exec("npx", ["--no-install", "airtime-harness", "scenarios", "list"], {
      cwd: consumer.dir,
      env: runtime.env,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toContain("flaky-gateway");
  });
});

test("the scenario JSON Schema and the OpenAPI documents resolve by their exported paths", async () => {
  const paths = ["airtime-harness/schemas/scenario.schema.json", "airtime-harness/spec/openapi.yaml"];
  const outcome = await exec(
    process.execPath,
    ["-e", `console.log(JSON.stringify(${JSON.stringify(paths)}.map((path) => require.resolve(path))))`],
    { cwd: consumer.dir },
  );
  expect(outcome.code, outcome.stderr).toBe(0);
  const resolved = JSON.parse(outcome.stdout) as string[];
  expect(resolved.map((file) => existsSync(file))).toEqual([true, true]);
});

/**
 * Install size budget of a project that adds only this package. Raised from
 * 30 MB for the dashboard's offline API reference: Redoc's standalone bundle
 * (about 1.1 MB) ships in dist/ui so the reference renders with no CDN. Then
 * to 33 MB for the profile probe (`profile init --from-target`) and the
 * dashboard's plots: a fresh consumer measured 32.05 MB with them, of which
 * zod alone is 8.2 MB and this package 4.6 MB.
 */
const INSTALL_BUDGET_MB = 33;

test(`installing the tarball alone adds at most ${INSTALL_BUDGET_MB} MB`, async () => {
  const measured = await exec("du", ["-sk", "node_modules"], { cwd: consumer.dir });
  const megabytes = Number(measured.stdout.split("\t")[0]) / 1024;
  const human = await exec("du", ["-sh", "node_modules"], { cwd: consumer.dir });
  console.info(`install size of a fresh consumer: ${human.stdout.trim()}`);
  expect(megabytes).toBeGreaterThan(0);
  expect(megabytes).toBeLessThanOrEqual(INSTALL_BUDGET_MB);
});

test("Prism is not installed with it, and --validate-with-prism says how to install it", async () => {
  expect(existsSync(join(consumer.dir, "node_modules/@stoplight/prism-cli"))).toBe(false);
  const outcome = await exec("npx", ["--no-install", "airtime-harness", "contract", "--validate-with-prism"], {
    cwd: consumer.dir,
  });
  expect(outcome.code).toBe(2);
  expect(outcome.stdout + outcome.stderr).toContain("npm install --save-dev @stoplight/prism-cli");
});

describe("with Prism added as the optional peer", () => {
  beforeAll(async () => {
    const added = await exec(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        `@stoplight/prism-cli@${MANIFEST.devDependencies["@stoplight/prism-cli"]}`,
      ],
      { cwd: consumer.dir },
    );
    expect(added.code, added.stderr).toBe(0);
  });

  test("contract --validate-with-prism finds it from a subfolder of the project", async () => {
    const subfolder = join(consumer.dir, "qa", "contract");
    await mkdir(subfolder, { recursive: true });
    const outcome = await exec(
      "npx",
      ["--no-install", "airtime-harness", "contract", "--validate-with-prism", "--property", "model", "--runs", "3"],
      { cwd: subfolder },
    );
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/response_schema_conformance\s+passed/);
  });
});

describe("the current LTS Node", () => {
  // CI installs it (.ci/run) and must never skip; locally the reason for a skip is in this test's name.
  test.skipIf(LTS_NODE === undefined && process.env.CI === undefined)(
    "runs these tests too (absent here: set AIRTIME_HARNESS_LTS_NODE to a Node binary, as .ci/run does)",
    () => {
      expect(LTS_NODE, "CI must set AIRTIME_HARNESS_LTS_NODE").toBeDefined();
      const majors = RUNTIMES.map((runtime) => Number(runtime.name.replace(/^Node (\d+).*/, "$1")));
      expect(majors).toHaveLength(2);
      expect(majors[1]).toBeGreaterThan(majors[0] ?? Infinity);
    },
  );
});
