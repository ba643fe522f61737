/**
 * `airtime-harness/vitest`: a vitest `test` whose context holds a running
 * test simulator. One simulator serves a whole test file (starting one per
 * test would cost a server and an inbox each time); it is reset before each
 * test that uses it, so tests stay independent, and closed after the file's
 * last test. vitest is an optional peer: only this entry imports it.
 */
import { test as baseTest } from "vitest";
import { startTestSimulator, type TestSimulator, type TestSimulatorOptions } from "./test-simulator.ts";

/**
 * A vitest `test` with a `simulator` fixture started with `options`.
 *
 * @example
 * export const test = createSimulatorTest({ timing: "5s", seed: 7 });
 */
// The return type is inferred: vitest's builder types record each fixture's scope, which a hand-written
// TestAPI<{ simulator }> would lose (and then no longer accept the test's own `extend`s).
export function createSimulatorTest(options: TestSimulatorOptions = {}) {
  return (
    baseTest
      .extend(
        "airtimeFileSimulator",
        { scope: "file" },
        // vitest reads which fixtures a fixture needs from its first parameter: it must be a destructuring.
        // eslint-disable-next-line no-empty-pattern
        async ({}, { onCleanup }) => {
          const simulator = await startTestSimulator(options);
          onCleanup(() => simulator.close());
          return simulator;
        },
      )
      // The file's simulator, reset before this test: `client`, `advance`, `expectWebhook`, `sim`, `inbox`.
      .extend("simulator", async ({ airtimeFileSimulator }): Promise<TestSimulator> => {
        await airtimeFileSimulator.reset();
        return airtimeFileSimulator;
      })
  );
}

/**
 * A vitest `test` with a `simulator` fixture on the default options.
 *
 * @example
 * import { expect } from "vitest";
 * import { test } from "airtime-harness/vitest";
 *
 * test("the shop is told of a delivered top-up", async ({ simulator }) => {
 *   await simulator.client.sendAirtime({ account: "0712345678", amount: 100, currency: "KES", reference: "A-1" });
 *   await simulator.advance(2_000);
 *   const webhook = await simulator.expectWebhook({ reference: "A-1", status: 20 });
 *   expect(webhook.status).toBe(20);
 * });
 */
export const test: SimulatorTest = createSimulatorTest();

/** The `test` that `createSimulatorTest` returns. */
export type SimulatorTest = ReturnType<typeof createSimulatorTest>;

export type { ExpectWebhookOptions, TestSimulator, TestSimulatorOptions } from "./test-simulator.ts";
