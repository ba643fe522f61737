/**
 * `serve --workers N`: N simulator processes on one port (`node:cluster`),
 * sharing their state through the Redis store. The primary only starts,
 * watches and stops the workers; each worker is `serve` itself, started
 * again with the same arguments. Generated secrets (the admin token, the
 * demo customer's token) are drawn once here and handed to every worker, so
 * any worker accepts what the banner prints.
 */
import cluster, { type Worker } from "node:cluster";
import { generateToken } from "../simulator/credentials.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import { watchStopSignals } from "./long-running.ts";

/** Set in every worker: its number, 1…N. Worker 1 prints the banner. */
const WORKER_INDEX_ENV = "AIRTIME_SIM_WORKER_INDEX";

/** The worker's number when this process is a `serve` worker, else undefined. */
export function workerIndex(): number | undefined {
  return cluster.isWorker ? Number(process.env[WORKER_INDEX_ENV] ?? "1") : undefined;
}

/** Secrets every worker must agree on, generated unless the settings give them. */
function sharedSecrets(options: SimulatorOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.adminToken === undefined) env.AIRTIME_SIM_ADMIN_TOKEN = generateToken("adm");
  const { demo } = options;
  if (demo !== false && demo?.token === undefined) env.AIRTIME_SIM_DEMO_TOKEN = generateToken("tok");
  return env;
}

/**
 * Runs the workers until SIGINT or SIGTERM, then stops them (each finishes
 * its work in flight) and resolves with the exit code. A worker that dies
 * after it listened is replaced; one that dies before (a bad setting, Redis
 * unreachable) stops the others, and its exit code is returned.
 */
export async function runWorkers(
  count: number,
  options: SimulatorOptions,
  say: (line: string) => void,
): Promise<number> {
  const secrets = sharedSecrets(options);
  const listened = new WeakSet<Worker>();
  // Counted here: a worker leaves `cluster.workers` only after both its exit and its disconnect.
  const live = new Set<Worker>();
  const indexOf = new WeakMap<Worker, number>();
  let stopping = false;
  let failure: number | undefined;
  const fork = (index: number): void => {
    const worker = cluster.fork({ ...secrets, [WORKER_INDEX_ENV]: String(index) });
    indexOf.set(worker, index);
    live.add(worker);
    worker.once("listening", () => listened.add(worker));
  };
  const signals = watchStopSignals(say);
  const allExited = new Promise<void>((resolve) => {
    cluster.on("exit", (worker, code, signal) => {
      const index = indexOf.get(worker) ?? 0;
      live.delete(worker);
      if (!stopping && listened.has(worker)) {
        say(`worker ${index} ended (${signal ?? `exit ${code}`}); starting another`);
        fork(index);
        return;
      }
      if (!stopping) {
        failure = code ?? 1;
        stopping = true;
        for (const other of live) other.process.kill("SIGTERM");
      }
      if (live.size === 0) resolve();
    });
  });
  for (let index = 1; index <= count; index++) fork(index);
  const stopped = await Promise.race([signals.first.then((signal) => signal), allExited.then(() => undefined)]);
  if (stopped !== undefined) {
    stopping = true;
    say(`\n${stopped}: stopping ${count} workers…`);
    for (const worker of live) worker.process.kill(stopped);
    await allExited;
  }
  signals.dispose();
  return failure ?? 0;
}
