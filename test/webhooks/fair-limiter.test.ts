import { expect, it } from "vitest";
import { createFairLimiter, type FairLimiter } from "../../src/webhooks/dispatcher.ts";

/** Tasks that stay running until released, recording the order they started in. */
function gated(limiter: FairLimiter) {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  let n = 0;
  const run = (key: string) => {
    const name = `${key}${++n}`;
    return limiter.run(key, async () => {
      started.push(name);
      await new Promise<void>((resolve) => gates.set(name, resolve));
      return name;
    });
  };
  const release = async (name: string) => {
    gates.get(name)?.();
    gates.delete(name);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, run, release, running: () => [...gates.keys()] };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it("runs at most maxActivePerKey per key, and a full key never holds up another", async () => {
  const limiter = createFairLimiter({ maxActive: 10, maxActivePerKey: 2, maxQueuedPerKey: 10 });
  const { run, release, running } = gated(limiter);
  const slow = Array.from({ length: 5 }, () => run("slow"));
  await tick();
  expect(running()).toEqual(["slow1", "slow2"]);
  // Another key goes straight through while "slow" is full.
  expect(await limiter.run("fast", async () => "done")).toEqual({ kind: "ran", value: "done" });
  while (running().length > 0) {
    expect(running().length).toBeLessThanOrEqual(2);
    await release(running()[0] as string);
  }
  expect((await Promise.all(slow)).map((result) => result.kind)).toEqual(["ran", "ran", "ran", "ran", "ran"]);
  expect(() => createFairLimiter({ maxActive: 0, maxActivePerKey: 1, maxQueuedPerKey: 1 })).toThrow(RangeError);
});

it("gives freed global slots to the waiting keys in turn", async () => {
  const limiter = createFairLimiter({ maxActive: 2, maxActivePerKey: 2, maxQueuedPerKey: 10 });
  const { started, run, release } = gated(limiter);
  // "a" takes both global slots and queues three more; "b" queues two after it.
  const all = [run("a"), run("a"), run("a"), run("a"), run("a"), run("b"), run("b")];
  await tick();
  expect(started).toEqual(["a1", "a2"]);
  await release("a1");
  await release("a2");
  await release("a3");
  await release("b6");
  // Round robin: b gets every other freed slot although a queued first.
  expect(started).toEqual(["a1", "a2", "a3", "b6", "a4", "b7"]);
  for (const name of ["a4", "b7", "a5"]) await release(name);
  expect(started).toHaveLength(7);
  await Promise.all(all);
});

it("sheds the oldest waiting task when a key's queue is full, and cancels a key's queue on demand", async () => {
  const limiter = createFairLimiter({ maxActive: 8, maxActivePerKey: 1, maxQueuedPerKey: 2 });
  const { started, run, release } = gated(limiter);
  const first = run("k");
  const queued = [run("k"), run("k")];
  const third = run("k");
  expect(await queued[0]).toEqual({ kind: "shed", reason: "queue_overflow" });
  const other = run("other");
  expect(limiter.cancelQueued("k")).toBe(2);
  expect(await queued[1]).toEqual({ kind: "shed", reason: "cancelled" });
  expect(await third).toEqual({ kind: "shed", reason: "cancelled" });
  await release("k1");
  expect(await first).toEqual({ kind: "ran", value: "k1" });
  await release("other5");
  expect(await other).toEqual({ kind: "ran", value: "other5" });
  expect(started).toEqual(["k1", "other5"]);
  expect(limiter.cancelQueued("k")).toBe(0);
});
