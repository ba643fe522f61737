/**
 * `airtime-harness handler-check` as users run it, a child process aimed at
 * real handlers: a pass, a failure printed as a replayable timeline with
 * curl lines and written as JSON, JUnit and HTML, and usage errors with exit 2.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { parseHandlerCheckArgs } from "../../src/cli/handler-check.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { runCli } from "../support/processes.ts";
import { startDialectHandler } from "./dialect-handlers.ts";
import { type Defect, type ExampleHandler, startExampleHandler } from "./example-handlers.ts";

const secret = generateWebhookSecret();
let handler: ExampleHandler | undefined;
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "handler-check-cli-"));
});
afterAll(() => rm(directory, { recursive: true, force: true }));
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

async function handlerCheck(defect: Defect | undefined, extra: readonly string[] = []) {
  handler = await startExampleHandler(secret, defect);
  const child = runCli([
    "handler-check",
    "--handler",
    handler.webhookUrl,
    "--secret",
    secret,
    "--state",
    handler.stateTemplate,
    "--effects",
    "/credits",
    ...extra,
  ]);
  const code = await child.exited;
  return { code, output: child.output() };
}

test("a correct handler passes: exit 0, every rule marked kept", async () => {
  const { code, output } = await handlerCheck(undefined, ["--runs", "20"]);
  expect(code, output).toBe(0);
  expect(output).toMatch(/✓ idempotence/);
  expect(output).toMatch(/ok: the handler kept every rule over 20 generated sequences/);
});

test("a failure exits 1 with the rule, a timeline with curl lines, a replay line, JSON, JUnit and HTML", async () => {
  const json = join(directory, "report.json");
  const junit = join(directory, "report.xml");
  const html = join(directory, "report.html");
  const { code, output } = await handlerCheck("skips_signature_check", [
    "--json",
    json,
    "--junit",
    junit,
    "--html",
    html,
  ]);
  expect(code, output).toBe(1);
  expect(output).toMatch(
    /✗ authenticity: a delivery of msg_\w+ \(hc-\w+-\d+: \d+ [\w ]+\) with a bad signature answered 204/,
  );
  expect(output).toMatch(/answer: 204 in \d+ ms/);
  expect(output).toMatch(/believed after: hc-\w+-\d+: /);
  expect(output).toMatch(/curl -sS -i -X POST "http:\/\/127\.0\.0\.1:\d+\/webhooks" .*-H "webhook-signature: v1,/);
  expect(output).toMatch(
    /replay: airtime-harness handler-check .*--secret "\$AIRTIME_WEBHOOK_SECRET" --seed[ =]-?\d+ --path [\d:]+/,
  );
  expect(output).not.toContain(secret);
  const report = JSON.parse(await readFile(json, "utf8")) as { ok: boolean; failure: { rule: string } };
  expect(report).toMatchObject({ version: 1, ok: false, failure: { rule: "authenticity" } });
  const xml = await readFile(junit, "utf8");
  expect(xml).toContain('<testcase classname="airtime-harness.handler-check" name="authenticity" time="0">');
  expect(xml).toMatch(/<failure message="a delivery of msg_/);
  expect(xml.match(/<skipped /g)).toHaveLength(4);
  const page = await readFile(html, "utf8");
  expect(page).toContain('<span class="verdict failed">failed</span>');
  expect(page).toMatch(
    /<div class="copyable" data-what="this curl command"><pre tabindex="0"><code>curl -sS -i -X POST/,
  );
  // The body's quotes reach the page as text, never as markup.
  expect(page).toContain("&quot;type&quot;:&quot;airtime.status&quot;");
  expect(page).toContain('data-what="the replay command"');
});

test("the printed replay reproduces the failure", async () => {
  const first = await handlerCheck("success_overwrites_reversed");
  expect(first.code, first.output).toBe(1);
  const replay = /replay: .*--seed[ =](-?\d+) --path ([\d:]+)/.exec(first.output);
  expect(replay).not.toBeNull();
  await handler?.close();
  const again = await handlerCheck("success_overwrites_reversed", [
    `--seed=${replay?.[1]}`,
    "--path",
    replay?.[2] ?? "",
  ]);
  expect(again.code, again.output).toBe(1);
  expect(again.output).toMatch(/✗ convergence: /);
  const steps = (output: string) =>
    output.match(/^ {2}\d+\. .*$/gm)?.map((line) => line.replace(/msg_\w+|hc-\w+-\d+/g, ""));
  expect(steps(again.output)).toEqual(steps(first.output));
});

test("an unreadable state is a setup error: exit 2, no verdict", async () => {
  const { code, output } = await handlerCheck(undefined, [
    "--state-status",
    "/nowhere",
    "--state",
    "http://127.0.0.1:9/{reference}",
  ]);
  expect(code, output).toBe(2);
  expect(output).toMatch(/error: cannot read http:\/\/127\.0\.0\.1:9\//);
});

test("bad input is told against its flag", () => {
  const base = ["--handler", "localhost:3000/webhooks", "--secret", secret];
  expect(parseHandlerCheckArgs(base, {})).toMatchObject({
    ok: false,
    error: expect.stringMatching(/--state URL .* or --state-command CMD/),
  });
  expect(parseHandlerCheckArgs([...base, "--state", "http://x/orders"], {})).toEqual({
    ok: false,
    error: "--state must contain {reference}",
  });
  expect(parseHandlerCheckArgs([...base, "--state", "http://x/{reference}", "--runs", "0"], {})).toEqual({
    ok: false,
    error: "--runs must be a positive integer",
  });
  expect(
    parseHandlerCheckArgs(["--handler", "ftp://x/", "--secret", secret, "--state", "http://x/{reference}"], {}),
  ).toMatchObject({ ok: false, error: expect.stringMatching(/^--handler: 'ftp' URLs are refused/) });
  expect(parseHandlerCheckArgs(["--handler", "localhost:3000/w", "--state", "http://x/{reference}"], {})).toEqual({
    ok: false,
    error: "--secret is needed (or AIRTIME_WEBHOOK_SECRET)",
  });
  const fromEnv = parseHandlerCheckArgs(["--handler", "localhost:3000/w", "--state", "http://x/{reference}"], {
    AIRTIME_WEBHOOK_SECRET: secret,
  });
  expect(fromEnv).toMatchObject({
    ok: true,
    settings: { handler: "http://localhost:3000/w", secret, stateStatus: "/status", runs: 50 },
  });
});

test("--provider drives deliveries in the profile's dialect, with its HMAC key", async () => {
  const key = "word-statuses-hmac-key-42";
  handler = await startDialectHandler(key);
  const args = ["handler-check", "--handler", handler.webhookUrl, "--secret", key, "--state", handler.stateTemplate];
  const provider = ["--provider", "examples/providers/word-statuses-hmac.yaml", "--runs", "15"];
  const passed = runCli([...args, ...provider]);
  expect(await passed.exited, passed.output()).toBe(0);
  expect(passed.output()).toMatch(/dialect/);
  expect(passed.output()).toMatch(/hmac sha256 hex in X-Signature/);
  // Without the profile the key is not a Standard Webhooks secret: told against its flag.
  expect(parseHandlerCheckArgs(args.slice(1), {})).toMatchObject({
    ok: false,
    error: expect.stringMatching(/^--secret must be whsec_/),
  });
  const standard = runCli([...args, "--provider", "examples/providers/enveloped-string-money.yaml"]);
  expect(await standard.exited).toBe(2);
  expect(standard.output()).toMatch(/--secret must be whsec_.*the profile signs with Standard Webhooks/);
});
