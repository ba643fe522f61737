/**
 * The status table pairs a lookup's word with a replay's number. When the
 * order moves between the two, the pair is wrong (the first word with the
 * second number); the probe drops such a replay, and the table must then
 * take the number from the next move rather than count the unpaired word
 * as a status of its own.
 */
import { describe, expect, test } from "vitest";
import type { HttpResponse } from "../../src/harness/http-client.ts";
import { inferStatuses } from "../../src/learn/infer-statuses.ts";
import type { ProbedOrder } from "../../src/learn/probe-target.ts";

const json = (body: unknown): HttpResponse => ({
  kind: "response",
  status: 200,
  headers: {},
  text: JSON.stringify(body),
  json: body,
});
const lookup = (word: string) => json({ state: word });
const replay = (code: number) => json({ code, ref: "r1" });
const bodies = { order: { status: "/code" }, lookup: { status: "/state" }, balance: { amount: "/funds" } };

function order(moves: ProbedOrder["moves"], refunded: boolean): ProbedOrder {
  return {
    reference: "r1",
    amount: 10,
    key: "k1",
    body: {},
    placed: replay(0),
    firstLookup: moves[0]?.lookup ?? lookup("QUEUED"),
    finalLookup: moves.at(-1)?.lookup ?? lookup("QUEUED"),
    replay: undefined,
    moves,
    balanceAfterPlace: { funds: 90 },
    balanceAfterFinal: { funds: refunded ? 100 : 90 },
  };
}

const observed = (...orders: ProbedOrder[]) => ({
  balanceBefore: { funds: 100 },
  orders,
  balanceAtEnd: {},
  refusals: {},
  refusedAmounts: [],
});

describe("inferStatuses", () => {
  test("a word whose replay was dropped (the order moved in between) takes no number and no place in the trail", () => {
    const held = order(
      [
        { lookup: lookup("QUEUED"), replay: replay(0) },
        { lookup: lookup("DELIVERED"), replay: replay(1) },
      ],
      false,
    );
    const raced = order(
      [
        { lookup: lookup("QUEUED"), replay: undefined },
        { lookup: lookup("FAILED"), replay: replay(2) },
      ],
      true,
    );
    const table = inferStatuses(observed(raced, held), bodies).value?.table;
    expect(table).toEqual([
      { code: 0, class: "pending", word: "QUEUED" },
      { code: 1, class: "success", word: "DELIVERED" },
      { code: 2, class: "failed", word: "FAILED" },
    ]);
  });
});
