/**
 * Handlers that reconcile by lookup: with `--reconcile`, some final webhooks
 * are withheld, and only a handler that looks its orders up on the
 * simulator (at the port and with the token it was configured with)
 * converges. A push-only handler is caught by convergence.
 */
import { afterEach, expect, test } from "vitest";
import { type HandlerCheckReport, runHandlerCheck } from "../../src/handler-check/check-handler.ts";
import { freePort } from "../../src/harness/child-process.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { checkOptionsFor, type ExampleHandler, type Lookup, startExampleHandler } from "./example-handlers.ts";

const secret = generateWebhookSecret();
const TOKEN = "handler-check-lookup-token";
let handler: ExampleHandler | undefined;
let checks = 0;

afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

async function check(port: number, lookup: Lookup | undefined, seed: number): Promise<HandlerCheckReport> {
  handler ??= await startExampleHandler(secret, undefined, lookup);
  return runHandlerCheck({
    ...checkOptionsFor(handler, secret, `reconcile-${++checks}`),
    reconcileUrl: handler.reconcileUrl,
    simulatorPort: port,
    simulatorToken: TOKEN,
    seed,
  });
}

test("a handler that looks its orders up converges although final webhooks are withheld", async () => {
  const port = await freePort();
  for (const seed of [1, 2, 3]) {
    const report = await check(port, { simulatorUrl: `http://127.0.0.1:${port}`, token: TOKEN }, seed);
    expect(report.simulatorUrl).toBe(`http://127.0.0.1:${port}`);
    expect(report.failure, report.failure?.message).toBeUndefined();
    expect(report.error).toBeUndefined();
  }
});

test("a handler that only listens is caught by convergence on a withheld webhook", async () => {
  const report = await check(await freePort(), undefined, 1);
  expect(report.failure?.rule).toBe("convergence");
  const last = report.failure?.timeline.at(-1);
  expect(last?.kind).toBe("reconcile");
  expect(last?.answer).toMatchObject({ kind: "answered", status: 404 });
});
