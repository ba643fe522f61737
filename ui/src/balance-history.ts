/**
 * Each customer's default-wallet balance over wall time, sampled whenever the
 * Plots tab reloads its customers. Kept for the page's life so switching tabs
 * does not lose it; only a change is stored, and at most the newest samples.
 */
import type { AdminCustomer } from "./types.ts";

const SAMPLES_KEPT = 600;

export interface BalanceHistory {
  record(customers: readonly AdminCustomer[], nowMs: number): void;
  /** Sample times (Unix seconds) and, per customer, the balance at each (null before it was known). */
  table(): { times: number[]; customers: [string, (number | null)[]][] };
}

export function createBalanceHistory(): BalanceHistory {
  const samples: { at: number; balances: Map<string, number> }[] = [];
  const names = new Set<string>();
  return {
    record(customers, nowMs) {
      const balances = new Map<string, number>();
      for (const c of customers) {
        const wallet = c.wallets.find((w) => w.default) ?? c.wallets[0];
        if (wallet === undefined) continue;
        balances.set(c.id, wallet.balance);
        names.add(c.id);
      }
      const last = samples.at(-1)?.balances;
      const same =
        last !== undefined && last.size === balances.size && [...balances].every(([k, v]) => last.get(k) === v);
      if (same) return;
      samples.push({ at: nowMs / 1000, balances });
      if (samples.length > SAMPLES_KEPT) samples.shift();
    },
    table() {
      return {
        times: samples.map((s) => s.at),
        customers: [...names].map((id) => [id, samples.map((s) => s.balances.get(id) ?? null)]),
      };
    },
  };
}
