/**
 * `compare` end to end: real simulators on real ports as targets, the
 * reference simulator started by the comparison itself, each side's
 * webhooks received over HTTP. The simulator compared with itself must show
 * no divergence and score 100 %, webhooks included.
 */
import { readFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { freePort } from "../../src/harness/child-process.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { formatCompareReport } from "../../src/compare/console-report.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";
import { useTempFolder } from "../support/temp-folder.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());

describe("the simulator compared with itself", () => {
  test.each([1, 2, 3, 4, 5])("seed %i: no divergence, fidelity 100 percent on every operation", async (seed) => {
    const { url, webhooks } = await targets.simulatorWithWebhooks({ seed: seed + 1000 });
    const report = await runCompare({
      target: url,
      token: TARGET_TOKEN,
      seed,
      runs: 8,
      settleMs: 10_000,
      reference: REFERENCE_SETTINGS,
      targetWebhooks: webhooks,
    });
    const divergences = report.results.filter((result) => !result.agrees);
    expect(divergences, formatCompareReport(report)).toEqual([]);
    expect(report.scores.overall).toBe(1);
    for (const operation of ["send", "replay", "lookup", "balance", "webhook"] as const) {
      expect(report.scores[operation]).toBe(1);
    }
    // The comparison did observe something: orders reached finals and were timed on both sides.
    expect(report.targetSide.finalTimesMs.length).toBeGreaterThan(10);
    expect(report.simulator.finalTimesMs.length).toBe(report.targetSide.finalTimesMs.length);
    expect(report.targetSide.unsettled).toBe(0);
    // Every final was told once, by a delivery whose signature verified, on both sides.
    for (const side of [report.simulator, report.targetSide]) {
      expect(side.webhooks?.statusChanges).toBe(side.finalTimesMs.length);
      expect(side.webhooks?.arrivalsPerDelivery).toEqual({ "1": side.finalTimesMs.length });
      expect(side.webhooks?.invalidSignatures).toBe(0);
    }
    expect(formatCompareReport(report)).toContain("no divergence");
  });
});

describe("compare --webhook-listen", () => {
  const folder = useTempFolder("compare-webhooks-");

  test("receives the target's webhooks itself and scores the webhook operation", async () => {
    const port = await freePort();
    const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
    // The command's own reference simulator runs with the defaults: the target does too.
    const target = await targets.simulator({
      timing: "2s",
      failureRate: 0,
      demo: {
        token: TARGET_TOKEN,
        balance: 10_000_000,
        webhook: { url: `http://127.0.0.1:${port}/hooks`, secrets: [secret] },
      },
    });
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    let code: number;
    try {
      code = await main([
        "compare",
        "--target",
        target,
        "--token",
        TARGET_TOKEN,
        "--runs",
        "3",
        "--seed",
        "5",
        "--webhook-listen",
        `127.0.0.1:${port}`,
        "--webhook-secret",
        secret,
        "--webhook-url",
        `http://127.0.0.1:${port}/hooks`,
        "--json",
        join(folder(), "report.json"),
      ]);
    } finally {
      log.mockRestore();
    }
    const output = lines.join("\n");
    expect(code, output).toBe(0);
    expect(output).toContain(`receiving the target's webhooks at http://127.0.0.1:${port}/webhooks`);
    expect(output).toMatch(/webhook 100\.0 %/);
    expect(output).toMatch(
      /webhooks received: simulator [1-9]\d* requests, 0 with a bad signature · target [1-9]\d* requests, 0 with a bad signature/,
    );
    expect(output).toContain("no divergence");
    const json = JSON.parse(await readFile(join(folder(), "report.json"), "utf8"));
    for (const side of [json.sides.simulator, json.sides.target]) {
      expect(side.webhooks.requests).toBeGreaterThan(0);
      expect(side.webhooks.invalidSignatures).toBe(0);
    }
  });

  test("without it the webhook operation is not observed", async () => {
    const target = await targets.simulator({ seed: 3 });
    const report = await runCompare({
      target,
      token: TARGET_TOKEN,
      seed: 3,
      runs: 2,
      settleMs: 10_000,
      reference: REFERENCE_SETTINGS,
    });
    expect(report.scores.webhook).toBeUndefined();
    expect(report.results.filter((result) => result.operation === "webhook")).toEqual([]);
    expect(formatCompareReport(report)).toContain("webhook not observed");
  });
});

describe("the compare command's usage errors", () => {
  test("a webhook listen address in use exits 2 naming it, before anything is sent", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const errors: string[] = [];
    const quiet = vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    try {
      const args = ["--target", "http://127.0.0.1:9", "--token", "t", "--webhook-listen", `127.0.0.1:${port}`];
      expect(await main(["compare", ...args, "--webhook-secret", "whsec_x"])).toBe(2);
      expect(errors.join("\n")).toContain(`the webhook listen address 127.0.0.1:${port} is in use`);
    } finally {
      quiet.mockRestore();
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  test.each([
    [[]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--runs", "zero"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--fail-under", "150"]],
    [["--target", "not a url", "--token", "t"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--bogus"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--webhook-listen", "127.0.0.1:0"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--webhook-secret", "whsec_x"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--webhook-listen", "nowhere", "--webhook-secret", "s"]],
    [
      [
        "--target",
        "http://127.0.0.1:9",
        "--token",
        "t",
        "--webhook-listen",
        ":0",
        "--webhook-secret",
        "s",
        "--webhook-url",
        "no url",
      ],
    ],
  ])("%j exits 2", async (args) => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await main(["compare", ...args])).toBe(2);
      expect(quiet).toHaveBeenCalled();
    } finally {
      quiet.mockRestore();
    }
  });
});
