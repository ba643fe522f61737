/**
 * What the plots draw, gathered from the live event stream while the page is
 * open (the tab need not be): orders placed and orders turned final per
 * second of wall time, and how long each final order stayed pending. Kept in
 * bounded windows, so a page left open under a load test does not grow.
 */
import type { LiveEvent } from "./api.ts";
import { statusClass } from "./status-class.ts";

/** Seconds of per-second counts kept: the last five minutes. */
export const RATE_WINDOW_S = 300;
/** Pending → final durations kept, the newest. */
const DURATIONS_KEPT = 5_000;

export interface RateSecond {
  placed: number;
  success: number;
  failed: number;
}

export interface LiveSeries {
  /** Reads one event off the stream. */
  accept(event: LiveEvent, nowMs: number): void;
  /** Per-second counts, oldest first, keyed by the second (Unix seconds). */
  rates(): ReadonlyMap<number, RateSecond>;
  /** Seconds each order that turned final stayed pending (simulator clock). */
  pendingToFinal(): readonly number[];
}

interface OrderEventData {
  id?: unknown;
  status?: unknown;
  createdAt?: unknown;
  updatedAt?: unknown;
}

export function createLiveSeries(): LiveSeries {
  const perSecond = new Map<number, RateSecond>();
  const durations: number[] = [];
  const finalSeen = new Set<string>();

  const second = (nowMs: number): RateSecond => {
    const key = Math.floor(nowMs / 1000);
    let counts = perSecond.get(key);
    if (counts === undefined) {
      counts = { placed: 0, success: 0, failed: 0 };
      perSecond.set(key, counts);
      // Map keys keep insertion order, and seconds only grow: the oldest are first.
      for (const old of perSecond.keys()) {
        if (old > key - RATE_WINDOW_S) break;
        perSecond.delete(old);
      }
    }
    return counts;
  };

  const acceptOrder = (order: OrderEventData, nowMs: number): void => {
    const kind = typeof order.status === "number" ? statusClass(order.status) : "";
    if ((kind !== "success" && kind !== "failed") || typeof order.id !== "string") return;
    // A reversal turns a final order final again: it counts once, as the class it first reached.
    if (finalSeen.has(order.id)) return;
    finalSeen.add(order.id);
    second(nowMs)[kind]++;
    if (typeof order.createdAt === "string" && typeof order.updatedAt === "string") {
      durations.push((Date.parse(order.updatedAt) - Date.parse(order.createdAt)) / 1000);
      if (durations.length > DURATIONS_KEPT) durations.splice(0, durations.length - DURATIONS_KEPT);
    }
    if (finalSeen.size > DURATIONS_KEPT * 2) finalSeen.clear();
  };

  return {
    accept(event, nowMs) {
      if (event.event === "request" && event.data.placed === true) second(nowMs).placed++;
      if (event.event === "order") acceptOrder(event.data as OrderEventData, nowMs);
    },
    rates: () => perSecond,
    pendingToFinal: () => durations,
  };
}
