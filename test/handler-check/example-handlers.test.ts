/**
 * handler-check against real handlers on real ports: the correct one passes
 * over five seeds; each broken one, one defect each, is caught over five
 * seeds by the rule that names its defect, shrunk to a short timeline.
 */
import { afterEach, expect, test } from "vitest";
import {
  DEFAULT_HANDLER_CHECK_RUNS,
  type HandlerCheckReport,
  runHandlerCheck,
} from "../../src/handler-check/check-handler.ts";
import type { RuleName } from "../../src/handler-check/judge.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { checkOptionsFor, type Defect, type ExampleHandler, startExampleHandler } from "./example-handlers.ts";

const SEEDS = [1, 2, 3, 4, 5];
const secret = generateWebhookSecret();
let handler: ExampleHandler | undefined;
let checks = 0;

afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

async function check(defect: Defect | undefined, seed: number): Promise<HandlerCheckReport> {
  handler ??= await startExampleHandler(secret, defect);
  return runHandlerCheck({ ...checkOptionsFor(handler, secret, `example-${++checks}`), seed });
}

const deliveriesIn = (report: HandlerCheckReport) =>
  (report.failure?.timeline ?? []).reduce((count, entry) => count + entry.deliveries.length, 0);

test("the correct handler passes every run, over five seeds", async () => {
  for (const seed of SEEDS) {
    const report = await check(undefined, seed);
    expect(report.error).toBeUndefined();
    expect(report.failure, `seed ${seed}: ${report.failure?.message}`).toBeUndefined();
    expect(report.runs).toBe(DEFAULT_HANDLER_CHECK_RUNS);
  }
});

const CAUGHT_BY: readonly (readonly [Defect, RuleName])[] = [
  ["applies_duplicates_twice", "idempotence"],
  ["last_write_wins", "convergence"],
  ["skips_signature_check", "authenticity"],
  ["accepts_stale_timestamps", "authenticity"],
  ["fails_unknown_orders_forever", "no_5xx"],
  ["success_overwrites_reversed", "convergence"],
];

test.each(CAUGHT_BY)("a handler that %s is caught by %s, shrunk to at most 6 deliveries", async (defect, rule) => {
  for (const seed of SEEDS) {
    const report = await check(defect, seed);
    expect(report.failure?.rule, `seed ${seed}`).toBe(rule);
    expect(deliveriesIn(report), `seed ${seed}`).toBeGreaterThan(0);
    expect(deliveriesIn(report), `seed ${seed}`).toBeLessThanOrEqual(6);
  }
});

test("a replay of the printed seed and path fails the same way at once", async () => {
  const first = await check("success_overwrites_reversed", 7);
  const failure = first.failure;
  expect(failure?.rule).toBe("convergence");
  const replay = await runHandlerCheck({
    ...checkOptionsFor(handler as ExampleHandler, secret, "example-replay"),
    seed: first.seed,
    path: failure?.path,
  });
  expect(replay.failure?.rule).toBe("convergence");
  expect(replay.failure?.timeline.map((entry) => entry.deliveries.map((d) => d.message.status))).toEqual(
    failure?.timeline.map((entry) => entry.deliveries.map((d) => d.message.status)),
  );
});
