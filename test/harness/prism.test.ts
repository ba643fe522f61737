/**
 * --validate-with-prism: model traffic goes through `prism proxy
 * spec/openapi.yaml <target> --errors` (with a provider profile, the
 * dialect's document); the correct simulator passes, and a response Prism
 * finds invalid is reported as response_schema_conformance.
 */
import { afterAll, describe, expect, test } from "vitest";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type DialectTarget, exampleProfile, startDialectTarget } from "../outside-tools/dialect-targets.ts";
import { type BrokenTarget, startBrokenTarget } from "./broken-targets.ts";
import { startRewritingProxy } from "./rewriting-proxy.ts";

const targets: BrokenTarget[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const target of targets) await target.close();
  for (const close of closers.reverse()) await close();
});

test("the correct simulator passes with Prism judging every model response", async () => {
  const report = await runContract({ runs: 10, seed: 3, validateWithPrism: true, properties: ["model"] });
  expect(report.errors).toEqual([]);
  expect(report.checks.filter((check) => check.status === "failed")).toEqual([]);
  expect(report.checks.find((check) => check.name === "response_schema_conformance")?.status).toBe("passed");
});

test("a response body without id is reported from Prism's violation as response_schema_conformance", async () => {
  const target = await startBrokenTarget("missing_id_on_success");
  targets.push(target);
  const report = await runContract({
    ...target.options,
    runs: 10,
    seed: 3,
    validateWithPrism: true,
    properties: ["model"],
    maxFailures: 1,
    // Prism's message and the replay command are judged, not how small the case gets: it is not shrunk.
    shrinkTimeMs: 0,
  });
  const verdict = report.checks.find((check) => check.name === "response_schema_conformance");
  expect(verdict?.status).toBe("failed");
  if (verdict?.status === "failed") {
    expect(verdict.failure.message).toMatch(/Prism reports a violation: .*'id'/);
    expect(verdict.failure.replay).toContain("--validate-with-prism");
  }
});

describe("with a provider profile, Prism validates against the dialect's document", () => {
  const dialect = () => exampleProfile("word-statuses-hmac.yaml");
  const run = (target: DialectTarget, url: string, provider: ProviderProfile) =>
    runContract({
      target: url,
      token: target.token,
      otherToken: target.otherToken,
      provider,
      // A dialect is judged against the interface, not our spec's schemas.
      profile: "interface",
      runs: 10,
      seed: 3,
      validateWithPrism: true,
      properties: ["model"],
      maxFailures: 1,
      // A violation is judged by its message, not by how small its case gets: it is not shrunk.
      shrinkTimeMs: 0,
    });

  test("answers that break our spec's document but fit the dialect's: no violation", async () => {
    const provider = await dialect();
    const target = await startDialectTarget(provider, { seed: 3 });
    closers.push(() => target.sim.close());
    const report = await run(target, target.url, provider);
    expect(report.errors).toEqual([]);
    expect(report.checks.filter((check) => check.status === "failed")).toEqual([]);
    expect(report.checks.find((check) => check.name === "response_schema_conformance")?.status).toBe("passed");
  }, 180_000);

  test("an answer that breaks the dialect's own document is reported", async () => {
    const provider = await dialect();
    const target = await startDialectTarget(provider, { seed: 3 });
    closers.push(() => target.sim.close());
    // The placed order's transaction id turns into a number, where the dialect's document says string.
    const broken = await startRewritingProxy(target.url, async (request, forward) => {
      const answer = await forward();
      if (request.method !== "POST" || answer.status !== 200) return answer;
      const body = JSON.parse(answer.body) as { result?: { transactionId?: unknown } };
      if (body.result?.transactionId === undefined) return answer;
      return { ...answer, body: JSON.stringify({ ...body, result: { ...body.result, transactionId: 12345 } }) };
    });
    closers.push(broken.close);
    const report = await run(target, broken.url, provider);
    const verdict = report.checks.find((check) => check.name === "response_schema_conformance");
    expect(verdict?.status).toBe("failed");
    if (verdict?.status === "failed") expect(verdict.failure.message).toMatch(/Prism reports a violation: .*string/);
  }, 180_000);
});
