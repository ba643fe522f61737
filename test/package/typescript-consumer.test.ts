/**
 * The packed package in a fresh TypeScript project: its declarations
 * type-check under the strictest common settings with both module
 * resolutions and without skipLibCheck, and a vitest test there uses it as
 * the docs show, on each Node version of the run.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Consumer, createConsumer, nodeRuntimes, runConsumerTsc, runConsumerVitest } from "./consumer.ts";
import { TYPESCRIPT_MODULE, VITEST_TEST } from "./order-scenario.ts";

const RUNTIMES = await nodeRuntimes();
let consumer: Consumer;

const STRICT = {
  target: "ES2022",
  lib: ["ES2023"],
  types: ["node"],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
};

/** One tsconfig per resolution; nodenext also checks a CommonJS file, which reads the `.d.cts`. */
const TSCONFIGS = {
  nodenext: {
    compilerOptions: { ...STRICT, module: "NodeNext", moduleResolution: "NodeNext" },
    files: ["order.ts", "order.cts"],
  },
  bundler: {
    compilerOptions: { ...STRICT, module: "Preserve", moduleResolution: "Bundler" },
    files: ["order.ts"],
  },
};

beforeAll(async () => {
  consumer = await createConsumer("typescript-consumer", ["typescript", "@types/node", "vitest"]);
  await consumer.write("order.ts", TYPESCRIPT_MODULE);
  await consumer.write("order.cts", TYPESCRIPT_MODULE);
  await consumer.write("order.test.ts", VITEST_TEST);
  for (const [resolution, tsconfig] of Object.entries(TSCONFIGS)) {
    await consumer.write(`tsconfig.${resolution}.json`, JSON.stringify(tsconfig, null, 2));
  }
});

afterAll(() => consumer?.remove());

test("the project has no @types/express: the declarations must not need it", () => {
  expect(existsSync(join(consumer.dir, "node_modules/express"))).toBe(true);
  expect(existsSync(join(consumer.dir, "node_modules/@types/express"))).toBe(false);
});

describe.each(Object.keys(TSCONFIGS))("moduleResolution %s", (resolution) => {
  test("tsc reports no error with strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess", async () => {
    const outcome = await runConsumerTsc(consumer.dir, `tsconfig.${resolution}.json`);
    expect(outcome.stdout + outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
  });
});

describe.each(RUNTIMES)("on $name", (runtime) => {
  test("a vitest test in the project places, replays and completes an order and verifies its webhook", async () => {
    const outcome = await runConsumerVitest(consumer.dir, runtime);
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/Tests\s+1 passed \(1\)/);
  });
});
