/**
 * Simulators sharing one Redis database, for the tests of what instances
 * share: each call starts some on a fresh database of the file's
 * `redis-server` (virtual clock, the demo customer, no shipped scenarios),
 * listening, and closed after the test.
 */
import { afterEach } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { bearer, type Reply, send } from "./http.ts";
import { useRedis } from "./redis.ts";

/** The demo customer's token on every simulator these helpers start. */
export const SHARED_TOKEN = "shared-redis-token-0001";

/** An order of KES 10 for the demo customer, placed on `sim`, its reference doubling as its idempotency key. */
export function placeOrderOn(sim: Simulator, reference: string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(sim.url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(SHARED_TOKEN), "idempotency-key": reference, ...headers },
    body: { account: "0712345678", amount: 10, currency: "KES", reference },
  });
}

/**
 * @example
 * const simulators = useRedisSimulators();
 * it("…", async () => { const [one, two] = await simulators(2); … });
 */
export function useRedisSimulators(): (count: number, options?: SimulatorOptions) => Promise<Simulator[]> {
  const { server } = useRedis();
  let databases = 0;
  const started: Simulator[] = [];
  afterEach(async () => {
    for (const sim of started.splice(0).reverse()) await sim.close();
  });
  return async (count, options = {}) => {
    const store = `redis://127.0.0.1:${server().port}/${++databases}`;
    const made: Simulator[] = [];
    for (let i = 0; i < count; i++) made.push(await startOnRedis(store, options, started));
    return made;
  };
}

/**
 * One simulator on `store` (virtual clock, the demo customer with
 * `SHARED_TOKEN`, no shipped scenarios), listening; pushed on `started`
 * before it listens, so the caller closes it even when listening fails.
 */
export async function startOnRedis(store: string, options: SimulatorOptions, started: Simulator[]): Promise<Simulator> {
  const sim = await createSimulator({
    clock: "virtual",
    demo: { token: SHARED_TOKEN, balance: 100_000 },
    scenarios: false,
    onError: () => undefined,
    ...options,
    store,
  });
  started.push(sim);
  await sim.listen(0);
  return sim;
}
