/**
 * Where each body keeps the order's fields, found by value: the probe's
 * order has a reference and an amount no other field carries, so the
 * pointers holding them name the reference and amount; the order id is the
 * value the send answer and the lookup share (and no two orders share); the
 * lookup's status is the field that moved between the first and the final
 * lookup; the send answer's status is the number the replay of a final order
 * changed; the balance is the field that fell by the amount.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { byName, createFindingLog, type Finding } from "./inference.ts";
import { changedPointers, leavesOf, moneyOf, pointersOfAmount, pointersOfText, valueAt } from "./json-leaves.ts";
import { statusLikeChanges, type Observations, type ProbedOrder } from "./probe-target.ts";

export type InferredBodies = NonNullable<ProviderProfile["bodies"]> & {
  order: NonNullable<NonNullable<ProviderProfile["bodies"]>["order"]>;
  lookup: NonNullable<NonNullable<ProviderProfile["bodies"]>["lookup"]>;
};

const STATUS_NAMES = /status|state|phase|stage|progress/i;
const ID_NAMES = /id$|^id|transaction|txn|order/i;

/** The pointer in the send answer whose value the lookup also holds, unique to this order. */
function sharedId(orders: readonly ProbedOrder[]): { order: string; lookup: string; value: string } | undefined {
  const [first, second] = orders;
  if (first === undefined) return undefined;
  const candidates = leavesOf(first.placed.json).filter((leaf) => {
    if (typeof leaf.value !== "string" || leaf.value === first.reference || leaf.value.length < 3) return false;
    return second === undefined || valueAt(second.placed.json, leaf.pointer) !== leaf.value;
  });
  for (const pointer of byName(
    candidates.map((leaf) => leaf.pointer),
    ID_NAMES,
  )) {
    const value = valueAt(first.placed.json, pointer) as string;
    const lookup = byName(pointersOfText(first.finalLookup.json, value), ID_NAMES)[0];
    if (lookup !== undefined) return { order: pointer, lookup, value };
  }
  return undefined;
}

/** The lookup's status: the field that moved in every order whose lookup moved, status-named first. */
function lookupStatusPointer(orders: readonly ProbedOrder[]): string | undefined {
  const moves = orders
    .map((order) => statusLikeChanges(order.firstLookup.json, order.finalLookup.json))
    .filter((pointers) => pointers.length > 0);
  const common = moves[0]?.filter((pointer) => moves.every((pointers) => pointers.includes(pointer))) ?? [];
  const wordy = common.filter((pointer) =>
    /^[\w.-]{1,40}$/.test(String(valueAt(orders[0]?.finalLookup.json, pointer))),
  );
  return byName(wordy.length > 0 ? wordy : common, STATUS_NAMES)[0];
}

/** The send answer's status: the number the replay of the final order changed (0 while pending, §2.3). */
function orderStatusPointer(order: ProbedOrder): string | undefined {
  const replay = order.replay?.json;
  const moved = replay === undefined ? [] : changedPointers(order.placed.json, replay);
  const numbers = moved.filter((pointer) => typeof valueAt(order.placed.json, pointer) === "number");
  const zero = leavesOf(order.placed.json)
    .filter((leaf) => leaf.value === 0)
    .map((leaf) => leaf.pointer);
  return byName(numbers.length > 0 ? numbers : zero, STATUS_NAMES)[0];
}

/** The balance field: the one that fell by the order's amount when it was placed. */
export function balancePointer(observations: Observations): string | undefined {
  const order = observations.orders[0];
  if (order === undefined) return undefined;
  return leavesOf(observations.balanceBefore)
    .filter((leaf) => {
      const before = moneyOf(leaf.value);
      const after = moneyOf(valueAt(order.balanceAfterPlace, leaf.pointer));
      return before !== undefined && after !== undefined && Math.abs(before - after - order.amount) < 0.005;
    })
    .map((leaf) => leaf.pointer)[0];
}

export function inferBodies(
  observations: Observations,
): Finding<{ bodies: InferredBodies; money: "number" | "string" }> {
  const log = createFindingLog();
  const orders = observations.orders;
  const first = orders[0] as ProbedOrder;
  const bodies: InferredBodies = { order: {}, lookup: {} };
  const reference = pointersOfText(first.placed.json, first.reference)[0];
  if (reference !== undefined) {
    bodies.order.reference = reference;
    log.note(["bodies", "order", "reference"], `the probe order's reference ${first.reference} was found here`);
  } else log.miss("the send answer's reference: the probe order's reference is not in it");
  const lookupReference = pointersOfText(first.finalLookup.json, first.reference)[0];
  if (lookupReference !== undefined) {
    bodies.lookup.reference = lookupReference;
    log.note(["bodies", "lookup", "reference"], `the probe order's reference was found here`);
  }
  const id = sharedId(orders);
  if (id !== undefined) {
    bodies.order.id = id.order;
    bodies.lookup.id = id.lookup;
    const how = `the value the send answer and the lookup share (${JSON.stringify(id.value)}), new per order`;
    log.note(["bodies", "order", "id"], how);
    log.note(["bodies", "lookup", "id"], how);
  } else log.miss("the order id: no value of the send answer is also in the lookup");
  const orderStatus = orderStatusPointer(first);
  if (orderStatus !== undefined) {
    bodies.order.status = orderStatus;
    log.note(["bodies", "order", "status"], "the number that was 0 when placed and changed in the replay once final");
  } else log.miss("the send answer's status");
  const message = first.replay === undefined ? [] : changedPointers(first.placed.json, first.replay.json);
  const orderMessage = message.find(
    (pointer) => pointer !== orderStatus && typeof valueAt(first.placed.json, pointer) === "string",
  );
  if (orderMessage !== undefined) {
    bodies.order.message = orderMessage;
    log.note(["bodies", "order", "message"], "the text that changed with the status in the replay");
  }
  const lookupStatus = lookupStatusPointer(orders);
  if (lookupStatus !== undefined) {
    bodies.lookup.status = lookupStatus;
    log.note(["bodies", "lookup", "status"], "the field that changed between the first lookup and the final one");
  } else log.miss("the lookup's status: no field moved before the probe's timeout");
  const amounts = pointersOfAmount(first.finalLookup.json, first.amount);
  const amount = byName(
    amounts.map((found) => found.pointer),
    /amount|value|sum/i,
  )[0];
  const money = amounts.find((found) => found.pointer === amount)?.form ?? "number";
  if (amount !== undefined) {
    bodies.lookup.amount = amount;
    log.note(["bodies", "lookup", "amount"], `the probe order's amount ${first.amount} was found here, as a ${money}`);
  }
  const balance = balancePointer(observations);
  if (balance !== undefined) {
    bodies.balance = { amount: balance };
    log.note(["bodies", "balance", "amount"], `fell by the order's amount (${first.amount}) when it was placed`);
  } else log.miss("the balance: no field of GET /v1/balance fell by the order's amount");
  log.note(["money"], `the lookup writes the amount as a ${money}`);
  return log.finding({ bodies, money });
}
