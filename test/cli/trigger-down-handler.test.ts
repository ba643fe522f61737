/**
 * `trigger` aimed at a handler that is not running: the repeated refusals
 * read as one line with a count, and the report says to start the handler.
 */
import { expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { freePort, runCli } from "../support/processes.ts";

it("collapses the refused attempts into one line with a count and a hint to start the handler", async () => {
  // A port nothing listens on: every attempt is refused.
  const port = await freePort();
  const child = runCli([
    "trigger",
    "failed",
    "--forward-to",
    `127.0.0.1:${port}/webhooks`,
    "--secret",
    generateWebhookSecret(),
  ]);
  const code = await child.exited;
  const output = child.output();
  expect(code, output).toBe(1);
  const refusals = output.split("\n").filter((line) => line.includes("connection_refused"));
  expect(refusals, output).toHaveLength(1);
  expect(refusals[0]).toMatch(/attempts 1–(\d+): no answer \(connection_refused\), \1 times/);
  expect(output).toContain(`nothing is listening at http://127.0.0.1:${port}/webhooks: start your handler`);
});
