/**
 * `serve`'s banner, as a user sees it in a terminal: where the demo
 * customer's webhooks go and with which secret (a generated one shown, not
 * kept silent), and whether the state came from a state file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { isWebhookSecret } from "../../src/webhooks/signing.ts";
import { startServe } from "../support/processes.ts";

const running: RunningProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop(1_000);
});

/** Starts serve and returns its banner once it is printed whole (it ends with the curl line). */
async function banner(args: readonly string[]): Promise<{ server: RunningProcess; text: string }> {
  const { server } = await startServe(["--quiet", ...args]);
  running.push(server);
  const printed = await server.waitFor(/-d '\{.*\}'\n/, 10_000);
  if (printed.kind !== "matched") throw new Error(server.output());
  return { server, text: server.output() };
}

test("a webhook URL without a secret shows the URL and the secret generated for it", async () => {
  const { text } = await banner(["--webhook-url", "http://127.0.0.1:4020/webhooks"]);
  const line = /^ {2}webhooks: http:\/\/127\.0\.0\.1:4020\/webhooks, signed with (\S+)$/m.exec(text);
  expect(line, text).not.toBeNull();
  expect(isWebhookSecret(line?.[1] ?? "")).toBe(true);
  expect(text).toContain("secret generated for this run");
});

test("a given secret is shown as given, not called generated", async () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const { text } = await banner(["--webhook-url", "http://127.0.0.1:4020/webhooks", "--webhook-secret", secret]);
  expect(text).toContain(`webhooks: http://127.0.0.1:4020/webhooks, signed with ${secret}`);
  expect(text).not.toContain("generated");
});

test("says whether the state was loaded from the state file", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "banner-state-")), "state.json");
  const first = await banner(["--state-file", file]);
  expect(first.text).toContain(`state: none in ${file} yet (saved there on shutdown)`);
  first.server.child.kill("SIGTERM");
  expect(await first.server.exited).toBe(0);
  const second = await banner(["--state-file", file]);
  expect(second.text).toContain(`state: loaded from ${file}`);
});
