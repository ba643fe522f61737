/**
 * The order a page of orders is in: by creation, oldest first unless the
 * query asks for the newest first. Every store sorts what it finds by
 * reference with it, so both directions read the same on every backend.
 */
import type { Order } from "./model.ts";
import type { OrderPageQuery } from "./ports.ts";

const oldestFirst = (a: Order, b: Order): number => a.createdAt - b.createdAt;
const newestFirst = (a: Order, b: Order): number => b.createdAt - a.createdAt;

export function byCreation(query: Pick<OrderPageQuery, "newestFirst">): (a: Order, b: Order) => number {
  return query.newestFirst === true ? newestFirst : oldestFirst;
}
