import { expect, it } from "vitest";
import { createColdQueue } from "../../src/store/cold-queue.ts";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

it("packs what falls out of the hot records in later turns of the event loop, a bounded batch per turn", async () => {
  const packed: string[] = [];
  const queue = createColdQueue({ hot: 10 }, (id) => packed.push(id));
  for (let i = 0; i < 610; i++) queue.settled(`o${i}`);
  // Nothing inside the writes that settled them.
  expect(packed).toEqual([]);
  await nextTurn();
  expect(packed.length).toBeGreaterThan(0);
  expect(packed.length).toBeLessThan(600);
  for (let turn = 0; turn < 10; turn++) await nextTurn();
  // The oldest 600, in settling order; the 10 most recent stay hot.
  expect(packed).toEqual(Array.from({ length: 600 }, (_, i) => `o${i}`));
});

it("packs at once when asked to, and forgets what it queued on clear", async () => {
  const packed: string[] = [];
  const queue = createColdQueue({ hot: 1, background: false }, (id) => packed.push(id));
  queue.settled("a");
  queue.settled("b");
  expect(packed).toEqual(["a"]);
  queue.clear();
  queue.settled("c");
  expect(packed).toEqual(["a"]);
  queue.settled("d");
  expect(packed).toEqual(["a", "c"]);
});
