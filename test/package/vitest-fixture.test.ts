/**
 * `airtime-harness/vitest` in a fresh project that installs the packed
 * tarball and vitest: a test there uses the fixture as the docs show (places
 * an order, advances the clock, awaits its verified webhook; the next test
 * finds the simulator reset), tsc accepts that test under strict settings,
 * and `airtime-harness/testing` does the same from plain Node. A file written
 * by `contract --emit-test` runs there too, from the public entries only.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { formatEmittedTest } from "../../src/harness/emit-test.ts";
import { type Consumer, createConsumer, exec, nodeRuntimes, runConsumerTsc, runConsumerVitest } from "./consumer.ts";

const RUNTIMES = await nodeRuntimes();
let consumer: Consumer;

const FIXTURE_TEST = `import { expect } from "vitest";
import { test } from "airtime-harness/vitest";

test("a placed order's verified webhook arrives once the clock moves", async ({ simulator }) => {
  const order = { account: "0712345678", amount: 100, currency: "KES", reference: "ORDER-1" } as const;
  const placed = await simulator.client.sendAirtime(order, { idempotencyKey: "key-1" });
  expect(placed.status).toBe(200);
  await simulator.advance(2_000);
  const webhook = await simulator.expectWebhook({ reference: "ORDER-1", status: 20 });
  expect(webhook.reference).toBe("ORDER-1");
  expect(webhook.status).toBe(20);
  expect(simulator.inbox.rejected()).toHaveLength(0);
});

test("the next test finds the same simulator reset", async ({ simulator }) => {
  const lookup = await simulator.client.getTransaction("ORDER-1");
  expect(lookup.status).toBe(404);
  expect(simulator.inbox.deliveries()).toHaveLength(0);
});
`;

/** The runner-neutral entry from plain Node, with no test runner at all. */
const PLAIN_NODE_SCRIPT = `import { startTestSimulator } from "airtime-harness/testing";

const harness = await startTestSimulator();
try {
  await harness.client.sendAirtime({ account: "0712345678", amount: 100, currency: "KES", reference: "PLAIN-1" });
  await harness.advance(2_000);
  const webhook = await harness.expectWebhook({ reference: "PLAIN-1", status: 20 });
  console.log(JSON.stringify({ reference: webhook.reference, status: webhook.status }));
} finally {
  await harness.close();
}
`;

/** A failure as `contract --emit-test` writes it, found on the in-process simulator (which holds). */
const EMITTED_TEST = formatEmittedTest({
  check: "never_server_error",
  property: "negative-input",
  message: "POST /v1/airtime answered HTTP 500",
  seed: 42,
  path: "3",
  run: {},
});

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
  },
  files: ["order.test.ts", "failures/never_server_error.test.ts"],
};

beforeAll(async () => {
  consumer = await createConsumer("vitest-fixture-consumer", ["typescript", "@types/node", "vitest"]);
  await consumer.write("order.test.ts", FIXTURE_TEST);
  await consumer.write("tsconfig.json", JSON.stringify(TSCONFIG, null, 2));
  await consumer.write("plain.mjs", PLAIN_NODE_SCRIPT);
  await mkdir(join(consumer.dir, "failures"));
  await consumer.write("failures/never_server_error.test.ts", EMITTED_TEST);
});

afterAll(() => consumer?.remove());

test("tsc accepts a test written against the fixture", async () => {
  const outcome = await runConsumerTsc(consumer.dir, "tsconfig.json");
  expect(outcome.stdout + outcome.stderr).toBe("");
  expect(outcome.code).toBe(0);
});

describe.each(RUNTIMES)("on $name", (runtime) => {
  test("vitest runs the fixture's tests (order, clock, verified webhook, a reset) and an emitted failure", async () => {
    const outcome = await runConsumerVitest(consumer.dir, runtime);
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(outcome.stdout).toContain("never_server_error holds (negative-input, seed 42)");
    expect(outcome.stdout).toMatch(/Tests\s+3 passed \(3\)/);
  });

  test("airtime-harness/testing runs from plain Node, no test runner", async () => {
    const outcome = await exec(runtime.node, ["plain.mjs"], { cwd: consumer.dir });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual({ reference: "PLAIN-1", status: 20 });
  });
});
