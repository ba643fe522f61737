/**
 * The foreign provider's books: balances per customer, orders, idempotency
 * keys, and each order's way from PENDING to its final status on a real
 * clock, with seeded randomness for the delays and outcomes.
 */
import { fingerprintOf, type OrderInput } from "./foreign-input.ts";

/** The provider's own status table: numbers in the send answer, words elsewhere. */
export const FOREIGN_STATUSES = {
  PENDING: { code: 0, message: "Pending" },
  SUCCESS: { code: 100, message: "Success" },
  FAILED: { code: 101, message: "Failed" },
  TIMEOUT: { code: 102, message: "Timeout" },
  REVERSED: { code: 103, message: "Reversed" },
  INSUFFICIENT_FUNDS: { code: 104, message: "Insufficient funds" },
} as const;

export type StatusWord = keyof typeof FOREIGN_STATUSES;

export interface ForeignOrder {
  readonly id: string;
  readonly customerId: string;
  readonly fingerprint: string;
  readonly input: OrderInput;
  readonly createdAt: string;
  status: StatusWord;
  updatedAt: string;
  /** Lookups answered since the order became final. */
  finalReads: number;
}

export type PlaceOutcome =
  | { readonly kind: "placed"; readonly order: ForeignOrder }
  | { readonly kind: "replayed"; readonly order: ForeignOrder }
  | { readonly kind: "mismatch" }
  | { readonly kind: "duplicate_reference" }
  | { readonly kind: "insufficient_balance" };

export interface Range {
  readonly min: number;
  readonly max: number;
}

export interface LedgerSettings {
  readonly seed: number;
  readonly finalDelayMs: Range;
  readonly reversalDelayMs: Range;
  readonly failureRate: number;
  /** The share of the failures that end in TIMEOUT rather than FAILED (default a half). */
  readonly timeoutShare?: number;
  readonly reversalRate: number;
  /**
   * Deal the outcomes in blocks of this many orders, each block holding
   * every share exactly (in seeded order), rather than draw each order's
   * alone: then every window of orders shows the rates the ledger is set to.
   */
  readonly outcomeBlock?: number;
  readonly balancesCents: ReadonlyMap<string, number>;
  /** Called on every final status (and again on a reversal), after the money moved. */
  readonly onFinal: (order: ForeignOrder) => void;
  readonly faults: LedgerFaults;
}

/** The planted defects the books themselves carry. */
export interface LedgerFaults {
  readonly sharedKeys: boolean;
  readonly crossCustomerLookup: boolean;
  readonly debitOnReplay: boolean;
  readonly acceptMismatch: boolean;
  readonly failureRefunds: 0 | 1 | 2;
  readonly refundReversal: boolean;
  readonly debitRefused: boolean;
}

export interface Ledger {
  balanceCents(customerId: string): number;
  /** The order a key already names, without placing anything. */
  orderForKey(customerId: string, key: string): ForeignOrder | undefined;
  /** `forceNew` places a new order whatever the key and reference already name. */
  place(customerId: string, input: OrderInput, key: string | undefined, forceNew?: boolean): PlaceOutcome;
  lookup(customerId: string, reference: string): ForeignOrder | undefined;
  close(): void;
}

export function isFinal(status: StatusWord): boolean {
  return status !== "PENDING";
}

/** mulberry32: a small seeded generator, so a seed replays the same delays and outcomes. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform draws dealt n at a time, one in each n-th of [0, 1) per block, shuffled: a share of k/n holds per block. */
function stratified(random: () => number, n: number): () => number {
  const block: number[] = [];
  return () => {
    if (block.length === 0) {
      block.push(...Array.from({ length: n }, (_, k) => (k + random()) / n));
      for (let i = n - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [block[i], block[j]] = [block[j] as number, block[i] as number];
      }
    }
    return block.pop() as number;
  };
}

export function createLedger(settings: LedgerSettings): Ledger {
  const random = seededRandom(settings.seed);
  const outcomeDraw = settings.outcomeBlock === undefined ? random : stratified(random, settings.outcomeBlock);
  const balances = new Map(settings.balancesCents);
  const byKey = new Map<string, ForeignOrder>();
  const byReference = new Map<string, ForeignOrder>();
  const timers = new Set<NodeJS.Timeout>();
  const faults = settings.faults;
  let issued = 0;

  const scoped = (customerId: string, text: string) => `${customerId}\u0000${text}`;
  const keyScope = (customerId: string, key: string) => (faults.sharedKeys ? key : scoped(customerId, key));
  const within = (range: Range) => range.min + random() * (range.max - range.min);
  const move = (customerId: string, cents: number) => balances.set(customerId, (balances.get(customerId) ?? 0) + cents);

  function later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  }

  function settle(order: ForeignOrder, status: StatusWord, refunds: number): void {
    order.status = status;
    order.updatedAt = new Date().toISOString();
    move(order.customerId, refunds * order.input.amountCents);
    settings.onFinal(order);
  }

  /** Draws the order's whole future at placement, so the seed alone decides it. */
  function scheduleLifecycle(order: ForeignOrder): void {
    const delay = within(settings.finalDelayMs);
    const draw = outcomeDraw();
    if (draw < settings.failureRate) {
      const status = draw < settings.failureRate * (1 - (settings.timeoutShare ?? 0.5)) ? "FAILED" : "TIMEOUT";
      later(delay, () => settle(order, status, faults.failureRefunds));
      return;
    }
    const reversed = random() < settings.reversalRate;
    const reversalDelay = within(settings.reversalDelayMs);
    later(delay, () => {
      settle(order, "SUCCESS", 0);
      if (reversed) later(reversalDelay, () => settle(order, "REVERSED", faults.refundReversal ? 1 : 0));
    });
  }

  function newOrder(customerId: string, input: OrderInput): ForeignOrder {
    issued += 1;
    const now = new Date().toISOString();
    const suffix = Math.floor(random() * 0xffffff)
      .toString(16)
      .padStart(6, "0");
    return {
      id: `TX${String(issued).padStart(8, "0")}${suffix.toUpperCase()}`,
      customerId,
      fingerprint: fingerprintOf(input),
      input,
      createdAt: now,
      status: "PENDING",
      updatedAt: now,
      finalReads: 0,
    };
  }

  function replay(order: ForeignOrder, fingerprint: string): PlaceOutcome {
    if (order.fingerprint !== fingerprint && !faults.acceptMismatch) return { kind: "mismatch" };
    if (faults.debitOnReplay) move(order.customerId, -order.input.amountCents);
    return { kind: "replayed", order };
  }

  return {
    balanceCents: (customerId) => balances.get(customerId) ?? 0,
    orderForKey: (customerId, key) => byKey.get(keyScope(customerId, key)),
    place(customerId, input, key, forceNew = false) {
      const known = key === undefined ? undefined : byKey.get(keyScope(customerId, key));
      if (known !== undefined && !forceNew) return replay(known, fingerprintOf(input));
      if (byReference.has(scoped(customerId, input.reference)) && !forceNew) return { kind: "duplicate_reference" };
      if ((balances.get(customerId) ?? 0) < input.amountCents) {
        if (faults.debitRefused) move(customerId, -input.amountCents);
        return { kind: "insufficient_balance" };
      }
      const order = newOrder(customerId, input);
      move(customerId, -input.amountCents);
      if (key !== undefined) byKey.set(keyScope(customerId, key), order);
      byReference.set(scoped(customerId, input.reference), order);
      scheduleLifecycle(order);
      return { kind: "placed", order };
    },
    lookup(customerId, reference) {
      const own = byReference.get(scoped(customerId, reference));
      if (own !== undefined || !faults.crossCustomerLookup) return own;
      return [...byReference.values()].find((order) => order.input.reference === reference);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
