/**
 * The stand-in servers of `npm run bench:split` answer each POST with its
 * own body's amount and an id of its own, in every shape: the split one
 * hands requests to another thread in batches and must give each answer
 * back to the request it belongs to.
 */
import { afterEach, expect, it } from "vitest";
import { type SplitServerSettings, startSplitServer } from "../../bench/thread-split-launch.ts";
import type { RunningProcess } from "../../src/harness/child-process.ts";

const running: RunningProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});

async function start(shape: SplitServerSettings["shape"]): Promise<string> {
  // 2 ms of stateless work each: requests queue meanwhile, so the split shape hands several over at once.
  const server = await startSplitServer({ shape, statelessUs: 2_000, stateUs: 20 });
  running.push(server);
  return server.url;
}

it.each(["bare", "one", "split"] as const)("the %s shape answers 60 parallel POSTs, each its own", async (shape) => {
  const url = await start(shape);
  const amounts = Array.from({ length: 60 }, (_, i) => 100 + i);
  const answers = await Promise.all(
    amounts.map(async (amount) => {
      const reply = await fetch(`${url}/v1/airtime`, { method: "POST", body: JSON.stringify({ amount }) });
      expect(reply.status).toBe(201);
      return (await reply.json()) as { id: string; amount: number };
    }),
  );
  expect(answers.map((answer) => answer.amount)).toEqual(amounts);
  expect(new Set(answers.map((answer) => answer.id)).size).toBe(amounts.length);
});
