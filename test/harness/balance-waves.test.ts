/**
 * Waves of model runs on one account: the starting balance is read once per
 * wave, the balance judged once, by the last member, over every member's
 * part; a member that ends early leaves the wave unjudged; a lane that
 * leaves stops being waited for.
 */
import { expect, test } from "vitest";
import { createBalanceWaves } from "../../src/harness/audit/balance-waves.ts";
import { createLaneSet, laneRuns, laneSeed } from "../../src/harness/lanes.ts";

test("every lane's run starts from one read, and the last to finish judges every part", async () => {
  const lanes = createLaneSet(3);
  const waves = createBalanceWaves<number, string>(lanes);
  let opened = 0;
  const judged: string[][] = [];
  const open = async () => ++opened * 100;
  const run = async (part: string) => {
    const wave = await waves.join(open);
    await wave.finish(part, async (parts) => {
      judged.push([...parts].sort());
    });
    return wave.start;
  };
  expect(await Promise.all([run("a"), run("b"), run("c")])).toEqual([100, 100, 100]);
  expect(judged).toEqual([["a", "b", "c"]]);
  expect(await Promise.all([run("d"), run("e"), run("f")])).toEqual([200, 200, 200]);
  expect(opened).toBe(2);
});

test("a wave with a member that ended early is not judged, and a lane that left is not waited for", async () => {
  const lanes = createLaneSet(2);
  const waves = createBalanceWaves<number, string>(lanes);
  const judged: string[][] = [];
  const judge = async (parts: readonly string[]) => {
    judged.push([...parts]);
  };
  const [first, second] = await Promise.all([waves.join(async () => 1), waves.join(async () => 1)]);
  second?.abandon();
  await first?.finish("kept", judge);
  expect(judged).toEqual([]);
  lanes.leave();
  const alone = await waves.join(async () => 2);
  await alone.finish("alone", judge);
  expect(judged).toEqual([["alone"]]);
});

test("the judge's failure is the last member's, and the others are released", async () => {
  const waves = createBalanceWaves<number, string>(createLaneSet(2));
  const [a, b] = await Promise.all([waves.join(async () => 0), waves.join(async () => 0)]);
  const early = a?.finish("a", async () => {});
  const late = b?.finish("b", async (parts) => {
    throw new Error(`balance wrong over ${parts.join("+")}`);
  });
  await expect(early).resolves.toBeUndefined();
  await expect(late).rejects.toThrow("balance wrong over a+b");
});

test("runs are shared out evenly, and lane 0 keeps the run's seed", () => {
  expect(laneRuns(25, 16)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]);
  expect(laneRuns(3, 1)).toEqual([3]);
  expect(laneSeed(42, 0)).toBe(42);
  expect(new Set([0, 1, 2, 3].map((lane) => laneSeed(42, lane))).size).toBe(4);
});
