/**
 * The second speed bar: many pending
 * orders at once, in-process through the domain, the memory store and the
 * embedded scheduler — no HTTP.
 *
 * 1. Real clock: N orders (default 100,000) are placed, all pending before
 *    the first falls due, with due times spread uniformly over a window.
 *    Each order's lateness is the simulator-clock time its final status was
 *    stored minus its due time (created + planned delay). Target: p99 ≤ 10 ms.
 * 2. Real clock, burst: the same N orders all due in the same millisecond —
 *    not a target, it shows the scheduler's finalisation throughput.
 * 3. Virtual clock: N orders placed while time stands still, then one
 *    `advance()` over all of them. Target: under a second. The heap growth
 *    per pending order is printed when run with `--expose-gc`.
 *
 * `node --expose-gc --import tsx bench/pending-orders.ts [--orders N] [--window-ms MS] [--json]`;
 * `npm run bench` runs it after the HTTP comparison.
 */
import { parseArgs } from "node:util";
import { DEFAULT_LIFECYCLE } from "../src/domain/lifecycle.ts";
import type { Order } from "../src/domain/model.ts";
import type { AirtimeService, StatusChange } from "../src/domain/service-types.ts";
import type { Timing } from "../src/domain/timing.ts";
import { createEmbeddedDomain } from "../src/simulator/embedded-domain.ts";
import type { TimeKeeper } from "../src/time/time-keeper.ts";

const CUSTOMER = "cus_bench";
const WARMUP_ORDERS = 10_000;

export interface PendingOrdersReport {
  readonly orders: number;
  readonly real: {
    readonly windowMs: number;
    readonly placeMs: number;
    readonly pendingBeforeFirstDue: number;
    readonly latenessMs: { readonly p50: number; readonly p99: number; readonly max: number };
  };
  readonly burst: { readonly lastLatenessMs: number; readonly finalisedPerSecond: number };
  readonly virtual: { readonly placeMs: number; readonly advanceMs: number; readonly finalised: number };
  /** Heap growth per pending order (orders, keys, jobs), when `gc` is exposed. */
  readonly bytesPerPendingOrder: number | undefined;
}

interface World {
  readonly service: AirtimeService;
  readonly time: TimeKeeper;
}

async function createWorld(
  mode: "real" | "virtual",
  timing: Timing,
  onStatus: (change: StatusChange) => void,
): Promise<World> {
  const domain = createEmbeddedDomain({
    clock: mode,
    startAt: 0,
    timing,
    onJobError: (error) => console.error(error),
  });
  await domain.store.putCustomer({
    id: CUSTOMER,
    name: "Bench",
    tokens: ["bench-token"],
    apiKey: "bench-key",
    wallets: [{ shortcode: null, balanceCents: Number.MAX_SAFE_INTEGER, currency: "KES" }],
  });
  domain.events.subscribe({
    async statusChanged(change) {
      onStatus(change);
    },
  });
  return { service: domain.service, time: domain.time };
}

/** Places `count` orders one after another, each with its own idempotency key, as the HTTP layer would. */
async function placeAll(service: AirtimeService, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const outcome = await service.placeOrder({
      customerId: CUSTOMER,
      request: {
        account: "0712345678",
        amountCents: 1_000,
        currency: "KES",
        reference: `${tag}-${i}`,
        idempotencyKey: `${tag}-${i}`,
      },
    });
    if (outcome.kind !== "placed") throw new Error(`order ${i} was not placed: ${outcome.kind}`);
  }
}

function dueAt(order: Order): number {
  return order.createdAt + (order.plan?.steps[0]?.afterMs ?? Number.NaN);
}

export function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Resolves once `count` orders reached a final status; rejects after `timeoutMs`. */
function finalCounter(count: number, timeoutMs: number) {
  let finals = 0;
  let done!: () => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<void>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  const timer = setTimeout(() => fail(new Error(`only ${finals} of ${count} orders finalised`)), timeoutMs);
  return {
    get finals() {
      return finals;
    },
    /** Returns the index of this final status among all of them. */
    onFinal(): number {
      const index = finals++;
      if (finals === count) {
        clearTimeout(timer);
        done();
      }
      return index;
    },
    finished,
  };
}

function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

export async function runPendingOrders(count: number, windowMs: number): Promise<PendingOrdersReport> {
  // Warm-up (JIT), which also measures how long placing takes, so the real-clock run can start
  // every order's delay after the last one is placed.
  const warm = await createWorld("virtual", { kind: "fixed", ms: 1_000 }, () => {});
  const warmStart = performance.now();
  await placeAll(warm.service, WARMUP_ORDERS, "warm");
  const perOrderMs = (performance.now() - warmStart) / WARMUP_ORDERS;
  await warm.time.advance(1_000);
  warm.time.stop();

  // 3. Virtual clock first: it also gives the memory figure, on a quiet heap.
  const vCounter = finalCounter(count, 600_000);
  const virtual = await createWorld("virtual", { kind: "uniform", minMs: 1_000, maxMs: 3_000 }, (change) => {
    if (change.final) vCounter.onFinal();
  });
  const hasGc = collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const vPlaceStart = performance.now();
  await placeAll(virtual.service, count, "virtual");
  const vPlaceMs = performance.now() - vPlaceStart;
  collectGarbage();
  const bytesPerPendingOrder = hasGc ? (process.memoryUsage().heapUsed - heapBefore) / count : undefined;
  const advanceStart = performance.now();
  await virtual.time.advance(3_000);
  const advanceMs = performance.now() - advanceStart;
  const vFinalised = vCounter.finals;
  virtual.time.stop();
  collectGarbage();

  // 1. Real clock, due times spread over the window.
  const delayMs = Math.ceil(perOrderMs * count * 2 + 1_000);
  const lateness = new Float64Array(count);
  const counter = finalCounter(count, delayMs + windowMs + 120_000);
  const real = await createWorld("real", { kind: "uniform", minMs: delayMs, maxMs: delayMs + windowMs }, (change) => {
    if (change.final) lateness[counter.onFinal()] = Date.now() - dueAt(change.order);
  });
  const placeStart = performance.now();
  await placeAll(real.service, count, "real");
  const placeMs = performance.now() - placeStart;
  const pendingBeforeFirstDue = count - counter.finals;
  await counter.finished;
  real.time.stop();
  lateness.sort();
  collectGarbage();

  // 2. Real clock, every order due in the same millisecond.
  const burstCounter = finalCounter(count, delayMs + 600_000);
  let lastLateness = 0;
  let firstFinalAt = 0;
  // A delay counts from each order's creation; one shared due time needs an explicit plan per order.
  const burstDue = Date.now() + delayMs;
  const burstWorld = await createWorld("real", DEFAULT_LIFECYCLE.timing, (change) => {
    if (!change.final) return;
    if (burstCounter.onFinal() === 0) firstFinalAt = Date.now();
    lastLateness = Date.now() - burstDue;
  });
  for (let i = 0; i < count; i++) {
    const afterMs = Math.max(0, burstDue - burstWorld.time.clock.now());
    const outcome = await burstWorld.service.placeOrder({
      customerId: CUSTOMER,
      request: { account: "0712345678", amountCents: 1_000, currency: "KES", reference: `burst-${i}` },
      plan: { steps: [{ afterMs, status: 20 }] },
    });
    if (outcome.kind !== "placed") throw new Error(`burst order ${i} was not placed: ${outcome.kind}`);
  }
  await burstCounter.finished;
  burstWorld.time.stop();
  const drainMs = Math.max(1, Date.now() - firstFinalAt);

  return {
    orders: count,
    real: {
      windowMs,
      placeMs,
      pendingBeforeFirstDue,
      latenessMs: {
        p50: percentile(lateness, 50),
        p99: percentile(lateness, 99),
        max: lateness[lateness.length - 1] ?? Number.NaN,
      },
    },
    burst: { lastLatenessMs: lastLateness, finalisedPerSecond: (count / drainMs) * 1_000 },
    virtual: { placeMs: vPlaceMs, advanceMs, finalised: vFinalised },
    bytesPerPendingOrder,
  };
}

const verdict = (ok: boolean) => (ok ? "meets the target" : "BELOW the target");

export function printPendingOrders(report: PendingOrdersReport): void {
  const n = report.orders.toLocaleString("en-US");
  const { real, burst, virtual } = report;
  console.log(`\n${n} pending orders, in-process (domain + memory store + scheduler, no HTTP)`);
  console.log(
    `real clock, due times spread over ${(real.windowMs / 1000).toFixed(0)} s (${real.pendingBeforeFirstDue.toLocaleString("en-US")} pending before the first was due; placed in ${(real.placeMs / 1000).toFixed(1)} s):`,
  );
  console.log(
    `  final status − due time: p50 ${real.latenessMs.p50.toFixed(0)} ms, p99 ${real.latenessMs.p99.toFixed(0)} ms, max ${real.latenessMs.max.toFixed(0)} ms ` +
      `(target p99 ≤ 10 ms) — ${verdict(real.latenessMs.p99 <= 10)}`,
  );
  console.log(
    `real clock, all ${n} due in the same millisecond: the last finalised ${burst.lastLatenessMs.toFixed(0)} ms after the due time ` +
      `(${Math.round(burst.finalisedPerSecond).toLocaleString("en-US")} finalisations/s; not a target)`,
  );
  console.log(
    `virtual clock: one advance over ${n} pending orders took ${virtual.advanceMs.toFixed(0)} ms, ` +
      `${virtual.finalised.toLocaleString("en-US")} finalised (target < 1,000 ms) — ` +
      verdict(virtual.advanceMs < 1_000 && virtual.finalised === report.orders),
  );
  if (report.bytesPerPendingOrder !== undefined) {
    console.log(
      `memory: ${Math.round(report.bytesPerPendingOrder).toLocaleString("en-US")} bytes of heap per pending order (order, idempotency key, scheduled job)`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      orders: { type: "string", default: "100000" },
      "window-ms": { type: "string", default: "10000" },
      json: { type: "boolean", default: false },
    },
  });
  const report = await runPendingOrders(Number(values.orders), Number(values["window-ms"]));
  if (values.json) console.log(JSON.stringify(report));
  else printPendingOrders(report);
}
