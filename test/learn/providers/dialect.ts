/**
 * What makes one test provider itself: how it writes every body, which
 * HTTP statuses and codes it refuses with, how it signs its webhooks, what
 * else it posts to the webhook URL, and what it accepts. The engine
 * (provider-server.ts) keeps the books and routes; a dialect is the wire.
 */
import type { ForeignOrder, StatusWord } from "../../harness/foreign/foreign-ledger.ts";

export type Refusal = "invalidInput" | "unauthorized" | "insufficient" | "notFound" | "wrongMethod" | "mismatch";

export interface OrderDomain {
  readonly minKes: number;
  readonly maxKes: number;
  /** 0: whole shillings only; 2: cents allowed. */
  readonly decimals: 0 | 2;
  readonly reference: RegExp;
  readonly account: RegExp;
  readonly services: readonly string[];
}

export interface Dialect {
  readonly name: string;
  readonly domain: OrderDomain;
  /** The number the send answer writes for a status (0 while pending, §2.3). */
  code(status: StatusWord): number;
  /** How the lookup and the webhook write a status. */
  word(status: StatusWord): string;
  sendAnswer(order: ForeignOrder, status: StatusWord): unknown;
  lookup(order: ForeignOrder, status: StatusWord): unknown;
  balance(cents: number): unknown;
  /** The HTTP status and code of each refusal; insufficient may be 200 (a failed order without an id, §7). */
  readonly refusals: Readonly<Record<Refusal, { readonly status: number; readonly code: string }>>;
  error(code: string, message: string, order?: Record<string, unknown>): unknown;
  /** The body of an order's status event, with the id of this event. */
  orderEvent(order: ForeignOrder, status: StatusWord, eventId: string): unknown;
  /** Events that are not about an order's status, sent after an order is placed. */
  sideEvents(order: ForeignOrder, balanceCents: number, eventId: string): unknown[];
  /** The headers of one delivery attempt of a body. */
  sign(body: string, eventId: string, secret: string, timestampSeconds: number): Record<string, string>;
}
