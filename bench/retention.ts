/**
 * What retention costs and what paging keeps short:
 *
 * 1. Memory per retained final order with its delivered webhook: N orders
 *    (default 20,000) placed with idempotency keys on a virtual clock,
 *    finalised, their webhooks delivered to a local receiver; the growth
 *    after a full GC, divided by N, of the heap (target: at most 1 KB) and of
 *    the buffers off it (the store's keys, references and evicted records,
 *    free room of their arenas included). Needs `--expose-gc`.
 * 2. Admin listings at 1M retained orders: pages of `GET /_sim/orders` over
 *    HTTP (first page, a customer, a rare reference prefix, a status, deep in
 *    a cursor chain) while `perf_hooks.monitorEventLoopDelay` watches. Target:
 *    no stall above about 50 ms.
 *
 * `node --expose-gc --import tsx bench/retention.ts [--orders N] [--listed N]`
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { Order } from "../src/domain/model.ts";
import { createSimulator } from "../src/simulator/create-simulator.ts";

const { values } = parseArgs({
  options: { orders: { type: "string", default: "20000" }, listed: { type: "string", default: "1000000" } },
});
const ORDERS = Number(values.orders);
const LISTED = Number(values.listed);
const gc = (globalThis as { gc?: () => void }).gc;

interface Memory {
  readonly heap: number;
  readonly buffers: number;
}

function memoryAfterGc(): Memory {
  for (let i = 0; i < 3; i++) gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, buffers: arrayBuffers };
}

async function memoryPerFinalOrder(): Promise<Memory | undefined> {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  const sim = await createSimulator({
    clock: "virtual",
    seed: 1,
    timing: "1s",
    scenarios: false,
    webhooks: { schedule: "0", jitter: 0 },
    demo: { token: "bench-demo-token", balance: 1e12, webhook: { url: `http://127.0.0.1:${port}/hook` } },
  });
  const place = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      await sim.service.placeOrder({
        customerId: "demo",
        request: {
          account: "0712345678",
          amountCents: 1_000,
          currency: "KES",
          reference: `ret-${i}`,
          idempotencyKey: `key-${i}`,
        },
      });
      // Finalise and deliver as we go, so attempts never pile up.
      if (i % 1_000 === 999) await sim.clock.advance(1_000);
    }
    await sim.clock.advance(1_000);
  };
  // Warm up code paths and shared tables before measuring.
  await place(0, 2_000);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const before = memoryAfterGc();
  await place(2_000, 2_000 + ORDERS);
  // Settled orders and deliveries are packed in the background: let it catch up first.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const after = memoryAfterGc();
  await sim.close();
  receiver.close();
  if (gc === undefined) return undefined;
  return { heap: (after.heap - before.heap) / ORDERS, buffers: (after.buffers - before.buffers) / ORDERS };
}

function syntheticOrder(i: number, now: number): Order {
  const at = now + Math.floor(i / 100);
  return {
    id: `ord_bench_${i}`,
    customerId: i % 10 === 0 ? "small" : "demo",
    reference: i === LISTED - 5 ? "rare-one" : `bulk-${i}`,
    service: "safaricom",
    account: "+254712345678",
    amountCents: 1_000,
    currency: "KES",
    shortcode: null,
    status: i % 50 === 0 ? 0 : 20,
    message: i % 50 === 0 ? "Pending" : "Success",
    createdAt: at,
    updatedAt: at,
    history: [{ status: 20, message: "Success", at }],
  };
}

async function listingStalls(): Promise<Record<string, { maxMs: number; pageMs: number; items: number }>> {
  const sim = await createSimulator({ clock: "virtual", seed: 1, maxOrders: LISTED * 2, scenarios: false });
  const now = sim.clock.now();
  // Placed the way the simulator places them (debited), on wallets deep enough for all.
  await sim.store.putCustomer({ id: "small", name: "Small", tokens: [], apiKey: "small-key", wallets: [] });
  for (const id of ["demo", "small"]) await sim.store.setWalletBalance(id, null, Number.MAX_SAFE_INTEGER);
  for (let i = 0; i < LISTED; i++) {
    const placed = await sim.store.placeOrder({ order: syntheticOrder(i, now), now });
    if (placed.kind !== "placed") throw new Error(`a synthetic order was not placed: ${placed.kind}`);
  }
  const url = await sim.listen(0);
  const get = async (path: string) => {
    const res = await fetch(`${url}/_sim${path}`, { headers: { authorization: `Bearer ${sim.adminToken}` } });
    return (await res.json()) as { orders: unknown[]; next_cursor: string | null };
  };
  const deep = await get(`/orders?limit=1000&from=${now + Math.floor(LISTED / 200)}`);
  const cases: Record<string, string> = {
    "first page (100)": "/orders",
    "1,000 from the start": "/orders?limit=1000",
    "one customer, 1,000": "/orders?customer=small&limit=1000",
    "rare reference prefix": "/orders?reference_prefix=rare-&limit=1000",
    "status 0, 1,000": "/orders?status=0&limit=1000",
    // A small --listed leaves no page after the half-way mark to start from.
    ...(deep.next_cursor === null ? {} : { "mid-way cursor, 1,000": `/orders?limit=1000&cursor=${deep.next_cursor}` }),
    "exact reference": "/orders?reference=rare-one",
  };
  const results: Record<string, { maxMs: number; pageMs: number; items: number }> = {};
  for (const [name, path] of Object.entries(cases)) {
    const monitor = monitorEventLoopDelay({ resolution: 1 });
    monitor.enable();
    const started = performance.now();
    let items = 0;
    for (let i = 0; i < 10; i++) items = (await get(path)).orders.length;
    const pageMs = (performance.now() - started) / 10;
    monitor.disable();
    results[name] = { maxMs: monitor.max / 1e6, pageMs, items };
  }
  await sim.close();
  return results;
}

const bytes = await memoryPerFinalOrder();
console.log(
  bytes === undefined
    ? "memory per retained final order with webhook: run with --expose-gc"
    : `per retained final order with its delivered webhook: heap ${Math.round(bytes.heap)} B, ` +
        `buffers off the heap ${Math.round(bytes.buffers)} B (${ORDERS} orders)`,
);
const stalls = await listingStalls();
console.log(`admin listing at ${LISTED.toLocaleString("en")} retained orders (10 requests each):`);
for (const [name, figures] of Object.entries(stalls)) {
  console.log(
    `  ${name.padEnd(24)} ${String(figures.items).padStart(5)} items  ${figures.pageMs.toFixed(1).padStart(6)} ms/page  max event-loop delay ${figures.maxMs.toFixed(1)} ms`,
  );
}
