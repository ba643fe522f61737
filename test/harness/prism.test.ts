/**
 * --validate-with-prism: model traffic goes through `prism proxy
 * spec/openapi.yaml <target> --errors`; the correct simulator passes, and a
 * response Prism finds invalid is reported as response_schema_conformance.
 */
import { afterAll, expect, test } from "vitest";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BrokenTarget, startBrokenTarget } from "./broken-targets.ts";

const targets: BrokenTarget[] = [];
afterAll(async () => {
  for (const target of targets) await target.close();
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
  });
  const verdict = report.checks.find((check) => check.name === "response_schema_conformance");
  expect(verdict?.status).toBe("failed");
  if (verdict?.status === "failed") {
    expect(verdict.failure.message).toMatch(/Prism reports a violation: .*'id'/);
    expect(verdict.failure.replay).toContain("--validate-with-prism");
  }
});
