/**
 * The probe of `profile init --from-target`: a handful of requests that make
 * the target show every body and rule a profile names, inside a budget.
 * It places a few orders of the smallest amount the target takes (each with
 * a unique reference), reads the balance before and after each, looks each
 * up until its status stops moving, replays it for the final status's
 * number, and provokes the refusals that cost nothing: the same key with
 * another amount, no token, an unknown reference, a wrong method, an order
 * missing a field and an order beyond the second customer's balance. What
 * came back is returned as observations; inference reads them.
 */
import { randomBytes } from "node:crypto";
import type { HttpOutcome, HttpResponse } from "../harness/http-client.ts";
import { changedPointers, valueAt } from "./json-leaves.ts";
import { newProbeKey, type ProbeClient } from "./probe-client.ts";

export interface ProbeSettings {
  readonly token: string;
  readonly otherToken?: string;
  readonly account: string;
  readonly service: string | undefined;
  /** KES; without one, `probeBudgetKes` (probe-settings.ts) bounds the spend once the first order is taken. */
  readonly budget?: number;
  /** How long an order may take to become final, ms. */
  readonly timeoutMs: number;
}

export interface ProbedOrder {
  readonly reference: string;
  readonly amount: number;
  /** The idempotency key and body it was placed with. */
  readonly key: string;
  readonly body: Record<string, unknown>;
  readonly placed: HttpResponse;
  /** The lookup right after placing, and the one once its status stopped moving. */
  readonly firstLookup: HttpResponse;
  readonly finalLookup: HttpResponse;
  /** The same request again once final: §3 rule 2 answers the latest status. */
  readonly replay: HttpResponse | undefined;
  /** The first lookup and each one whose status-like fields moved, with a replay sent right after it (its number). */
  readonly moves: readonly { readonly lookup: HttpResponse; readonly replay: HttpResponse | undefined }[];
  readonly balanceAfterPlace: unknown;
  readonly balanceAfterFinal: unknown;
  /** Looked up once more after every order: a later move (a reversal) shows here. */
  lateLookup?: HttpResponse;
  lateReplay?: HttpResponse;
}

export type RefusalKind = "mismatch" | "unauthorized" | "notFound" | "wrongMethod" | "invalidInput" | "insufficient";

export interface Observations {
  readonly balanceBefore: unknown;
  readonly orders: readonly ProbedOrder[];
  readonly balanceAtEnd: unknown;
  readonly refusals: Partial<Record<RefusalKind, HttpResponse | undefined>>;
  /** Amounts the target refused before one was taken. */
  readonly refusedAmounts: readonly number[];
}

/** Amounts tried, smallest first, until the target takes one. */
const AMOUNT_LADDER = [1, 5, 10, 20, 50, 100, 200, 500, 1000];
const MAX_ORDERS = 10;
/** A status that has moved and then held still this long is taken as final. */
const SETTLE_MS = 600;
const POLL_MS = 100;

const response = (outcome: HttpOutcome | undefined): HttpResponse | undefined =>
  outcome?.kind === "response" ? outcome : undefined;

/** A reference most providers take: letters and digits, 14 characters. */
export function newProbeReference(): string {
  return `LRN${randomBytes(6).toString("hex").toUpperCase()}`.slice(0, 14);
}

interface OrderDraft {
  readonly reference: string;
  readonly key: string;
  readonly body: Record<string, unknown>;
  readonly amount: number;
}

function draft(settings: ProbeSettings, amount: number): OrderDraft {
  const reference = newProbeReference();
  const body: Record<string, unknown> = { account: settings.account, amount, currency: "KES", reference };
  if (settings.service !== undefined) body.service = settings.service;
  return { reference, key: newProbeKey(), body, amount };
}

export function createTargetProbe(client: ProbeClient, settings: ProbeSettings) {
  const token = settings.token;
  const post = (order: OrderDraft, body = order.body) =>
    client.order({ method: "POST", path: "/v1/airtime", token, body, idempotencyKey: order.key, amount: order.amount });
  const lookup = async (reference: string) =>
    response(await client.send({ method: "GET", path: `/v1/airtime/${encodeURIComponent(reference)}`, token }));
  const balance = async () => response(await client.send({ method: "GET", path: "/v1/balance", token }))?.json;

  /** Walks up the amount ladder; the first order the target takes is the first probe order. */
  async function firstOrder(refused: number[]): Promise<{ order: OrderDraft; placed: HttpResponse } | undefined> {
    for (const amount of AMOUNT_LADDER) {
      if (settings.budget !== undefined && amount > settings.budget) return undefined;
      const order = draft(settings, amount);
      const placed = response(await post(order));
      if (placed !== undefined && placed.status === 200 && placed.text.includes(order.reference)) {
        return { order, placed };
      }
      if (placed === undefined || placed.status >= 500) return undefined;
      refused.push(amount);
    }
    return undefined;
  }

  /**
   * A replay's number pairs with a lookup's word only if the order did not
   * move between the two: a lookup after the replay must still read as the
   * one before it, or the pair is dropped and the next move supplies it.
   */
  async function replayHeldTo(order: OrderDraft, looked: HttpResponse): Promise<HttpResponse | undefined> {
    const replay = response(await post({ ...order, amount: 0 }));
    const after = await lookup(order.reference);
    if (after === undefined || after.status !== 200) return undefined;
    return statusLikeChanges(looked.json, after.json).length > 0 ? undefined : replay;
  }

  /** Looks an order up until a field of it has moved and then held still, replaying it at each move. */
  async function untilSettled(order: OrderDraft, first: HttpResponse) {
    const deadline = Date.now() + settings.timeoutMs;
    const moves: { lookup: HttpResponse; replay: HttpResponse | undefined }[] = [];
    let last = first;
    let movedAt: number | undefined;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const next = await lookup(order.reference);
      if (next === undefined || next.status !== 200) continue;
      const moved = statusLikeChanges(last.json, next.json).length > 0;
      last = next;
      if (moved) {
        movedAt = Date.now();
        moves.push({ lookup: next, replay: await replayHeldTo(order, next) });
      } else if (movedAt !== undefined && Date.now() - movedAt >= SETTLE_MS) break;
    }
    return { finalLookup: last, moves };
  }

  async function follow(order: OrderDraft, placed: HttpResponse): Promise<ProbedOrder | undefined> {
    const firstLookup = await lookup(order.reference);
    // The first lookup may already be past pending on a fast target: its replay's number says which.
    const firstReplay = firstLookup === undefined ? undefined : await replayHeldTo(order, firstLookup);
    const balanceAfterPlace = await balance();
    if (firstLookup === undefined || firstLookup.status !== 200) return undefined;
    const settled = await untilSettled(order, firstLookup);
    const finalLookup = settled.finalLookup;
    const moves = [{ lookup: firstLookup, replay: firstReplay }, ...settled.moves];
    const balanceAfterFinal = await balance();
    const replay = response(await post({ ...order, amount: 0 }));
    return { ...order, placed, firstLookup, finalLookup, replay, moves, balanceAfterPlace, balanceAfterFinal };
  }

  return { firstOrder, follow, post, lookup, balance, draft: (amount: number) => draft(settings, amount) };
}

/** Pointers that changed and do not hold a time: what a status change looks like. */
export function statusLikeChanges(before: unknown, after: unknown): string[] {
  return changedPointers(before, after).filter((pointer) => !isTimeLike(valueAt(after, pointer)));
}

function isTimeLike(value: unknown): boolean {
  if (typeof value === "number") return value > 1_000_000_000;
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value);
}

export const PROBE_LIMITS = { MAX_ORDERS } as const;
