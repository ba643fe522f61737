/**
 * The stand-in servers of `npm run bench:split` answer each POST with its
 * own body's amount and an id of its own, in every shape: the split one
 * hands requests to another thread in batches and must give each answer
 * back to the request it belongs to.
 */
import { resolve } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { SplitServerSettings } from "../../bench/thread-split-server.ts";
import { freePort, type RunningProcess, startProcess } from "../../src/harness/child-process.ts";

const SERVER = resolve(import.meta.dirname, "../../bench/thread-split-server.ts");
const running: RunningProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});

async function start(shape: SplitServerSettings["shape"]): Promise<string> {
  // 2 ms of stateless work each: requests queue meanwhile, so the split shape hands several over at once.
  const settings: SplitServerSettings = { shape, port: await freePort(), statelessUs: 2_000, stateUs: 20 };
  const server = startProcess(process.execPath, ["--import", "tsx", SERVER, JSON.stringify(settings)]);
  running.push(server);
  const started = await server.waitFor(/listening on (http:\/\/\S+)/, 15_000);
  if (started.kind !== "matched" || started.match[1] === undefined) throw new Error(server.output());
  return started.match[1];
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
