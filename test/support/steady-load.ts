/**
 * Steady load on simulators sharing one Redis, for the network fault
 * scenarios: workers place orders (each with its own key), replay earlier
 * keys and look orders up, round robin over the instances, and every answer
 * is kept with when it came, so a test can tell what was acknowledged, what
 * failed and how, and how long the service took to come back.
 */
import { bearer, type Reply, send } from "./http.ts";

export const LOAD_TOKEN = "network-faults-token-01";

export type RequestKind = "place" | "replay" | "lookup";

export interface Answer {
  readonly kind: RequestKind;
  readonly status: number;
  /** The problem's `code` of a 4xx/5xx, when it has one. */
  readonly code: string | undefined;
  readonly startedAt: number;
  readonly ms: number;
}

export interface SteadyLoad {
  readonly answers: Answer[];
  /** Reference → the id of its first 200; every such order must exist afterwards. */
  readonly acknowledged: Map<string, string>;
  /** Keys a replay acknowledged with another id than the first: a second charge. */
  readonly replayedToNewId: string[];
  /** Stops the workers; resolves once every request out is answered. */
  stop(): Promise<void>;
}

const orderOf = (reference: string) => ({
  method: "POST",
  headers: { ...bearer(LOAD_TOKEN), "idempotency-key": reference },
  body: { account: "0712345678", amount: 10, currency: "KES", reference },
});

/** A request that cannot complete in `timeoutMs` counts as status 0: the test fails on it. */
async function timedSend(url: string, path: string, init: Parameters<typeof send>[2], timeoutMs: number) {
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref());
  return Promise.race([send(url, path, init).catch(() => undefined), timeout]);
}

/**
 * @example
 * const load = startSteadyLoad([a.url, b.url], { workers: 8, prefix: "latency" });
 * … faults …
 * await load.stop();
 */
export function startSteadyLoad(
  urls: readonly string[],
  options: { readonly workers: number; readonly prefix: string; readonly timeoutMs: number },
): SteadyLoad {
  const answers: Answer[] = [];
  const acknowledged = new Map<string, string>();
  const replayedToNewId: string[] = [];
  let stopped = false;
  let next = 0;

  async function one(kind: RequestKind, url: string, path: string, init: Parameters<typeof send>[2]) {
    const startedAt = Date.now();
    const reply: Reply | undefined = await timedSend(url, path, init, options.timeoutMs);
    const status = reply?.status ?? 0;
    const code = status >= 400 ? ((reply?.body as { code?: string } | undefined)?.code ?? undefined) : undefined;
    answers.push({ kind, status, code, startedAt, ms: Date.now() - startedAt });
    return reply;
  }

  async function worker(index: number): Promise<void> {
    for (let round = 0; !stopped; round++) {
      const url = urls[(index + round) % urls.length] as string;
      const reference = `${options.prefix}-${next++}`;
      const placed = await one("place", url, "/v1/airtime", orderOf(reference));
      if (placed?.status === 200 && !acknowledged.has(reference)) acknowledged.set(reference, placed.body.id as string);
      const earlier = [...acknowledged.keys()][Math.floor(Math.random() * acknowledged.size)];
      if (earlier === undefined) continue;
      const replay = await one("replay", url, "/v1/airtime", orderOf(earlier));
      if (replay?.status === 200 && replay.body.id !== acknowledged.get(earlier)) replayedToNewId.push(earlier);
      await one("lookup", url, `/v1/airtime/${earlier}`, { headers: bearer(LOAD_TOKEN) });
    }
  }

  const running = Array.from({ length: options.workers }, (_, index) => worker(index));
  return {
    answers,
    acknowledged,
    replayedToNewId,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** The p99 of the answers' times, in ms (NaN for none). */
export function p99(answers: readonly Answer[]): number {
  const sorted = answers.map(({ ms }) => ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
}
