/**
 * A contract run's options normalised once: every default filled in from
 * the one table, what the caller gave kept as given, and the result frozen.
 */
import { describe, expect, it } from "vitest";
import { clockScaleMs, CONTRACT_DEFAULTS, contractSettings } from "../../src/harness/contract-settings.ts";

const REMOTE = { target: "https://sandbox.example.com", token: "t" };

describe("contractSettings", () => {
  it("gives the in-process simulator the documented defaults", () => {
    const settings = contractSettings({});
    expect(settings).toMatchObject({
      profile: "strict",
      runs: 100,
      realClockModelRuns: 25,
      maxCommands: 20,
      timingMs: 2000,
      finalTimeoutMs: 30_000,
      webhookTimeoutMs: 2000,
      requestTimeoutMs: 10_000,
      maxWaitMs: 500,
      lateAuditMs: 5000,
      shrinkTimeMs: 10_000,
      maxFailures: Number.POSITIVE_INFINITY,
      validateWithPrism: false,
      sharedAccount: false,
      requireCoverage: false,
      prismCwd: process.cwd(),
    });
    expect(Number.isSafeInteger(settings.seed)).toBe(true);
  });

  it("knows no timing of a remote target without one, and waits longer for its webhooks", () => {
    const settings = contractSettings(REMOTE);
    expect(settings.timingMs).toBeUndefined();
    expect(settings.webhookTimeoutMs).toBe(CONTRACT_DEFAULTS.webhookTimeoutMs);
  });

  it("keeps what the caller gave, a given run count for the real-clock model runs too", () => {
    const given = {
      timingMs: 0,
      runs: 7,
      seed: 42,
      maxFailures: 1,
      lateAuditMs: 0,
      webhookTimeoutMs: 250,
      profile: "interface",
      sharedAccount: true,
    } as const;
    expect(contractSettings({ ...REMOTE, ...given })).toMatchObject({ ...REMOTE, ...given, realClockModelRuns: 7 });
  });

  it("is frozen: a default cannot be changed on the way", () => {
    expect(Object.isFrozen(contractSettings({}))).toBe(true);
  });
});

describe("clockScaleMs", () => {
  it("is the run's timing, or the default timing where the target's is unknown", () => {
    expect(clockScaleMs(0)).toBe(0);
    expect(clockScaleMs(750)).toBe(750);
    expect(clockScaleMs(undefined)).toBe(CONTRACT_DEFAULTS.timingMs);
  });
});
