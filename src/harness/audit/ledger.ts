/**
 * The ledger: every order any property placed, under which token, for how
 * much, and whether it has been seen final. A model run on an account other
 * runs also use settles the ledger's open orders before it reads its
 * starting balance, so no earlier order is still moving money while the
 * run's balance is judged.
 */
import type { CallResult } from "../api.ts";

export interface LedgerEntry {
  readonly token: string;
  readonly reference: string;
  readonly amountCents: number;
  /** Seen in a final status (settled). */
  final: boolean;
  /** Seen in a status that gives the money back (a failure, a reversal). */
  refunded: boolean;
}

export interface Ledger {
  add(entry: Omit<LedgerEntry, "final" | "refunded"> & { readonly final?: boolean; readonly refunded?: boolean }): void;
  /** Orders under `token` not yet seen final. */
  open(token: string): LedgerEntry[];
  /** Orders under `token` seen final and not refunded: a legal later move (a reversal) may still refund them. */
  kept(token: string): LedgerEntry[];
  size(): number;
}

export function createLedger(): Ledger {
  const entries: LedgerEntry[] = [];
  return {
    add(entry) {
      entries.push({ ...entry, final: entry.final ?? false, refunded: entry.refunded ?? false });
    },
    open: (token) => entries.filter((entry) => entry.token === token && !entry.final),
    kept: (token) => entries.filter((entry) => entry.token === token && entry.final && !entry.refunded),
    size: () => entries.length,
  };
}

/** Records an order a stateless property placed, when the target accepted it. */
export function recordPlaced(
  ledger: Ledger,
  token: string,
  reference: string,
  amountCents: number,
  result: CallResult,
): void {
  if (result.kind === "response" && result.response.status === 200) ledger.add({ token, reference, amountCents });
}
