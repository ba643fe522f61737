/**
 * The provider's stated rate limit is kept: the pacer spaces request starts
 * by 1/requestsPerSecond (on injected time), and a contract run against the
 * foreign provider with a tight limit meets no 429 once its profile states
 * the cap, where the same run without it is refused.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { createPacer } from "../../src/harness/paced-client.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

describe("createPacer", () => {
  test("spaces starts by the interval, in the order asked, and lets a late request through at once", async () => {
    let now = 0;
    const starts: number[] = [];
    const pacer = createPacer(10, {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    // Asked together at time 0: each waits its turn (the fake sleep moves time on).
    for (let i = 0; i < 3; i++) {
      await pacer.slot();
      starts.push(now);
    }
    now = 1000;
    await pacer.slot();
    starts.push(now);
    expect(starts).toEqual([0, 100, 200, 1000]);
  });
});

/** The foreign provider's own profile, with its stated cap replaced (or removed). */
async function foreignProfile(requestsPerSecond: number | undefined) {
  const text = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");
  const capped = text.replace(
    /^rateLimit: .*$/m,
    requestsPerSecond === undefined ? "" : `rateLimit: { requestsPerSecond: ${requestsPerSecond} }`,
  );
  const loaded = parseProviderProfile(capped);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

async function refusedDuringRun(statedCap: number | undefined): Promise<number> {
  const target = await startForeignTarget({ requestsPerSecond: 6, finalDelayMs: { min: 20, max: 60 } });
  try {
    const report = await runContract({
      ...interfaceRunAgainst(target),
      provider: await foreignProfile(statedCap),
      properties: ["auth", "isolation"],
      seed: 3,
      runs: 2,
    });
    expect(report.errors).toEqual([]);
    return target.rateLimited();
  } finally {
    await target.close();
  }
}

test("a run keeps the cap its profile states, and meets the provider's 429s without it", async () => {
  // Stated below the provider's real limit of 6 per second: network jitter cannot push a seventh into a second.
  expect(await refusedDuringRun(4)).toBe(0);
  expect(await refusedDuringRun(undefined)).toBeGreaterThan(0);
}, 180_000);
