/**
 * `airtime-harness learn` end to end: against Jambo (a test provider with
 * its own dialect and published OpenAPI document) whose finals come after
 * 200–800 ms, 12 % of them REJECTED and 4 % EXPIRED, `learn` writes
 * `provider.yaml` and `simulator.json`; a simulator started from that config
 * (what `serve --config DIR/simulator.json` runs) is then compared with the
 * same provider again, over three seeds: the twin scores at least 95 % with
 * no rule diverging, answer shapes included (the probe records the fields
 * the provider writes beyond the profile's pointers). Each comparison sends
 * 40 runs (about 150 orders), the fewest that see a 4 % outcome reliably
 * (0.96^150 ≈ 0.2 % chance of missing it).
 *
 * The provider deals its outcomes in blocks of 25 orders (3 REJECTED,
 * 1 EXPIRED, 21 delivered, in seeded order), so each comparison's window of
 * its orders shows the rates it is set to. Drawn one order at a time, seed
 * 22's orders 171–330 (the second comparison's) failed 39 of 160: a 3-σ
 * window of the provider's own, which no twin calibrated on the orders
 * before it can follow. The twin's own outcomes stay drawn one by one.
 * With --budget, the provider's own books show it spent no more, and
 * nothing but the two files is written.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, vi } from "vitest";
import { learn } from "../../src/cli/learn.ts";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { loadSimulatorConfig } from "../../src/simulator/config.ts";
import { startLearnKit, WEBHOOK_SECRET } from "./learn-kit.ts";
import { JAMBO } from "./providers/jambo-dialect.ts";

const JAMBO_OPENAPI = fileURLToPath(new URL("./providers/jambo.openapi.yaml", import.meta.url));
/** 16 % of orders fail, a quarter of them by timing out: 12 % REJECTED, 4 % EXPIRED. */
const TARGET = {
  finalDelayMs: { min: 200, max: 800 },
  failureRate: 0.16,
  timeoutShare: 0.25,
  reversalRate: 0,
  outcomeBlock: 25,
};
const RUNS = 40;

/** Runs `airtime-harness learn ARGS`; the lines it printed come back. */
async function runLearn(args: readonly string[]): Promise<{ code: number; printed: string[] }> {
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  const error = vi.spyOn(console, "error").mockImplementation((line: unknown) => void printed.push(String(line)));
  const progress = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    return { code: await learn([...args]), printed };
  } finally {
    log.mockRestore();
    error.mockRestore();
    progress.mockRestore();
  }
}

test.each([21, 22, 23])(
  "seed %i: learn writes only its two files, and its twin scores at least 95 % with no divergence",
  async (seed) => {
    const kit = await startLearnKit(JAMBO, { ...TARGET, seed });
    try {
      const out = join(kit.dir, "twin");
      const run = await runLearn([
        ...["--target", kit.provider.url, "--token", kit.provider.tokens.primary],
        ...["--other-token", kit.provider.tokens.other, "--from-openapi", JAMBO_OPENAPI],
        ...["--listen", `127.0.0.1:${kit.port}`, "--webhook-secret", WEBHOOK_SECRET],
        ...["--out", out, "--seed", String(seed), "--runs", String(RUNS), "--settle", "10s"],
      ]);
      expect(run.code, run.printed.join("\n")).toBe(0);
      expect((await readdir(out)).sort()).toEqual(["provider.yaml", "simulator.json"]);
      expect(run.printed).toContain(`wrote ${join(out, "provider.yaml")}`);
      expect(run.printed.some((line) => line.startsWith(`wrote ${join(out, "simulator.json")}`))).toBe(true);
      // Every request the probe sent is printed before it is sent.
      expect(run.printed.some((line) => line.startsWith("→ POST /v1/airtime"))).toBe(true);

      const written = JSON.parse(await readFile(join(out, "simulator.json"), "utf8")) as {
        outcomes: { status: number; share: number }[];
        provider: string;
      };
      expect(written.provider).toBe("provider.yaml");
      expect(written.outcomes).toHaveLength(2);
      const loaded = parseProviderProfile(await readFile(join(out, "provider.yaml"), "utf8"));
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));

      const twin = await loadSimulatorConfig(join(out, "simulator.json"));
      const second = await runCompare({
        target: kit.provider.url,
        token: kit.provider.tokens.primary,
        provider: loaded.profile,
        seed: seed + 100,
        runs: RUNS,
        settleMs: 10_000,
        reference: twin,
      });
      const learnt = (line: string) => line.startsWith("target finals") || line.startsWith("wrote ");
      console.log(run.printed.filter(learnt).join("\n"));
      const diverging = second.results.filter((result) => !result.agrees).map((result) => result.rule);
      console.log(
        `seed ${seed}: overall ${((second.scores.overall ?? 0) * 100).toFixed(1)} %; diverging: ${diverging.join("; ") || "none"}`,
      );
      // The twin reaches the provider's finals (REJECTED and EXPIRED too) on its timing, in its shapes.
      expect(diverging).toEqual([]);
      expect(second.scores.overall).toBeGreaterThanOrEqual(0.95);
    } finally {
      await kit.close();
    }
  },
  // About a minute alone; two busy loops beside it on a loaded 2-core machine took over three.
  420_000,
);

test("learn spends at most --budget, as the provider's books count it, and writes only its two files", async () => {
  const kit = await startLearnKit(JAMBO, { ...TARGET, seed: 31 });
  try {
    const out = join(kit.dir, "twin");
    const budget = 30_000;
    const run = await runLearn([
      ...["--target", kit.provider.url, "--token", kit.provider.tokens.primary],
      ...["--from-openapi", JAMBO_OPENAPI, "--budget", String(budget)],
      ...["--out", out, "--seed", "31", "--runs", "10", "--settle", "10s"],
    ]);
    expect(run.code, run.printed.join("\n")).toBe(0);
    expect(kit.provider.spentKes()).toBeGreaterThan(0);
    expect(kit.provider.spentKes()).toBeLessThanOrEqual(budget);
    expect(await readdir(kit.dir)).toEqual(["twin"]);
    expect((await readdir(out)).sort()).toEqual(["provider.yaml", "simulator.json"]);
  } finally {
    await kit.close();
  }
}, 120_000);
