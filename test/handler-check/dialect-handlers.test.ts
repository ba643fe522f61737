/**
 * handler-check in a provider's dialect: deliveries shaped and signed by the
 * profile (the renderer the simulator sends with), forged in its scheme, and
 * the handler's stored status words read back through its table. A handler
 * written for the word-statuses-hmac example passes; fed our spec's
 * deliveries it does not; each dialect defect is caught by its rule.
 */
import { randomUUID } from "node:crypto";
import { afterEach, expect, test } from "vitest";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { compileRenderer } from "../../src/contract/provider-profile/render.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { type HandlerCheckReport, runHandlerCheck } from "../../src/handler-check/check-handler.ts";
import { formatHandlerCheckConsole, formatHandlerCheckHtml } from "../../src/handler-check/report-formats.ts";
import { createProviderDialect } from "../../src/handler-check/delivery-dialect.ts";
import type { RuleName } from "../../src/handler-check/judge.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { type DialectDefect, startDialectHandler } from "./dialect-handlers.ts";
import { checkOptionsFor, type ExampleHandler } from "./example-handlers.ts";

const SEEDS = [1, 2, 3];
// An HMAC key is whatever text the provider hands out, not a whsec_ secret.
const secret = "word-statuses-hmac-key-42";
let handler: ExampleHandler | undefined;
let checks = 0;

afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

async function wordStatusesProfile(): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile("examples/providers/word-statuses-hmac.yaml");
  if (!loaded.ok) throw new Error("the example profile does not load");
  return loaded.profile;
}

async function check(
  defect: DialectDefect | undefined,
  seed: number,
  profile: ProviderProfile | null,
): Promise<HandlerCheckReport> {
  handler ??= await startDialectHandler(secret, defect);
  const dialect =
    profile === null ? undefined : createProviderDialect(compileRenderer(profile, { newUuid: randomUUID }));
  return runHandlerCheck({ ...checkOptionsFor(handler, secret, `dialect-${++checks}`), seed, dialect });
}

test("a correct handler of the word-statuses HMAC dialect passes over several seeds", async () => {
  const profile = await wordStatusesProfile();
  for (const seed of SEEDS) {
    const report = await check(undefined, seed, profile);
    expect(report.error).toBeUndefined();
    expect(report.failure, `seed ${seed}: ${report.failure?.message}`).toBeUndefined();
    expect(report.dialect).toContain("hmac sha256 hex in X-Signature");
    expect(report.notApplicable).toEqual({});
  }
});

test("the same handler fed our spec's deliveries fails: the option matters", async () => {
  // Standard Webhooks needs a whsec_ key; the handler uses it as its HMAC key all the same.
  const whsec = generateWebhookSecret();
  handler = await startDialectHandler(whsec);
  const report = await runHandlerCheck({ ...checkOptionsFor(handler, whsec, `dialect-${++checks}`), seed: 1 });
  expect(report.error).toBeUndefined();
  // Our Standard Webhooks headers carry no X-Signature: it refuses every genuine delivery.
  expect(report.failure?.rule).toBe("acknowledgement");
  expect(report.failure?.message).toMatch(/was answered 401; it needs a 2xx/);
});

const CAUGHT_BY: readonly (readonly [DialectDefect, RuleName])[] = [
  ["skips_hmac_check", "authenticity"],
  ["last_write_wins", "convergence"],
];

test.each(CAUGHT_BY)("a dialect handler that %s is caught by %s", async (defect, rule) => {
  const profile = await wordStatusesProfile();
  for (const seed of SEEDS) {
    const report = await check(defect, seed, profile);
    expect(report.failure?.rule, `seed ${seed}`).toBe(rule);
    // The timeline's deliveries are the dialect's: HMAC headers, the order under /transaction, a word status.
    const delivery = report.failure?.timeline[0]?.deliveries[0];
    expect(delivery?.request.headers["x-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(delivery?.request.body ?? "{}").transaction.status).toMatch(/^[A-Z_]+$/);
  }
});

test("an unsigned dialect says authenticity is not applicable, and forges nothing", async () => {
  const profile = {
    ...(await wordStatusesProfile()),
    webhooks: { deliveryId: { header: "X-Delivery-Id" }, signing: { scheme: "none" as const } },
  };
  // The HMAC-less handler is the one that accepts unsigned deliveries.
  const report = await check("skips_hmac_check", 1, profile);
  expect(report.failure).toBeUndefined();
  expect(Object.keys(report.notApplicable).sort()).toEqual(["altered_body", "bad_signature", "stale_timestamp"]);
  expect(formatHandlerCheckConsole(report, { replay: "" })).toContain(
    "not applicable: a bad signature, as the profile signs nothing (signing: none)",
  );
  expect(formatHandlerCheckHtml(report, { replay: "" })).toContain(
    "authenticity not applicable to a bad signature (the profile signs nothing (signing: none)",
  );
});
