/**
 * The status table, from what the probe's orders went through: the pending
 * status is the lookup's first value with the send answer's number (0,
 * §2.3); each final status is the lookup's last value with the number its
 * replay answered; its class comes from the balance: a refund means failed,
 * none means success, and a move after a success that refunds means
 * reversed. Only statuses the orders reached are in the table; the others
 * are named as missing.
 */
import type { ProfileStatusClass, ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { InferredBodies } from "./infer-bodies.ts";
import { createFindingLog, type Finding } from "./inference.ts";
import { moneyOf, valueAt } from "./json-leaves.ts";
import type { Observations, ProbedOrder } from "./probe-target.ts";

type Statuses = NonNullable<ProviderProfile["statuses"]>;
type Entry = NonNullable<Statuses["table"]>[number];

interface Seen {
  readonly written: unknown;
  readonly code: unknown;
  readonly message: unknown;
  readonly cls: ProfileStatusClass;
  readonly how: string;
}

const isWord = (value: unknown) => typeof value === "string" && !/^\d+$/.test(value);

function refunded(order: ProbedOrder, balance: string): boolean {
  const placed = moneyOf(valueAt(order.balanceAfterPlace, balance));
  const final = moneyOf(valueAt(order.balanceAfterFinal, balance));
  return placed !== undefined && final !== undefined && Math.abs(final - placed - order.amount) < 0.005;
}

/** The statuses one order went through, each with its class; a move after the last one (a reversal) included. */
function trailOf(probed: ProbedOrder, bodies: InferredBodies, balance: string): Seen[] {
  const at = (body: unknown, pointer: string | undefined) =>
    pointer === undefined ? undefined : valueAt(body, pointer);
  const { lookup, order } = bodies;
  const pendingCode = at(probed.placed.json, order.status);
  const pending: Seen[] = [];
  const steps: Omit<Seen, "cls" | "how">[] = [];
  let previous: unknown;
  for (const move of probed.moves) {
    // A move without a replay held to it has no number to pair with; a later move names the status.
    if (move.replay === undefined) continue;
    const written = at(move.lookup.json, lookup.status);
    if (written === previous || written === undefined) continue;
    previous = written;
    const step = { written, code: at(move.replay?.json, order.status), message: at(move.replay?.json, order.message) };
    if (steps.length === 0 && step.code === pendingCode) {
      pending.push({ ...step, cls: "pending", how: "a new order's lookup while its replay still answered 0" });
    } else steps.push(step);
  }
  const refund = refunded(probed, balance);
  // A refund after two moves is a success taken back (reversed); two moves without one, a step while pending.
  const classes: ProfileStatusClass[] = steps.map((_, index) => {
    const last = index === steps.length - 1;
    if (last) return refund ? (steps.length > 1 ? "reversed" : "failed") : "success";
    return index === steps.length - 2 && refund ? "success" : "pending";
  });
  const seen: Seen[] = steps.map((step, index) => ({
    ...step,
    cls: classes[index] as ProfileStatusClass,
    how: `${ordinal(index)} status an order moved to (its number from a replay); ${HOW[classes[index] as ProfileStatusClass]}`,
  }));
  const late = at(probed.lateLookup?.json, lookup.status);
  if (!refund && steps.length > 0 && late !== undefined && late !== previous) {
    seen.push({
      written: late,
      code: at(probed.lateReplay?.json, order.status),
      message: at(probed.lateReplay?.json, order.message),
      cls: "reversed",
      how: "a successful order moved here later: taken back (reversed)",
    });
  }
  return [...pending, ...seen];
}

const HOW: Record<ProfileStatusClass, string> = {
  pending: "another move followed: still pending",
  success: "final, not refunded",
  failed: "final, refunded",
  reversed: "refunded after a success: reversed",
};

function ordinal(index: number): string {
  return ["the first", "the second", "the third"][index] ?? `move ${index + 1}:`;
}

function seenStatuses(observations: Observations, bodies: InferredBodies): Seen[] {
  const balance = bodies.balance?.amount ?? "";
  return observations.orders.flatMap((probed) => trailOf(probed, bodies, balance));
}

function entryOf(seen: Seen, words: boolean): Entry | undefined {
  const code = typeof seen.code === "number" ? seen.code : Number(seen.written);
  if (!Number.isInteger(code) || code < 0) return undefined;
  const entry: Entry = { code, class: seen.cls };
  if (words && isWord(seen.written)) entry.word = seen.written as string;
  if (typeof seen.message === "string" && seen.message.length > 0) entry.message = seen.message;
  return entry;
}

export function inferStatuses(observations: Observations, bodies: InferredBodies): Finding<Statuses | undefined> {
  const log = createFindingLog();
  if (bodies.lookup.status === undefined || bodies.order.status === undefined) {
    log.miss("the status table: the status fields were not found");
    return log.finding(undefined);
  }
  const seen = seenStatuses(observations, bodies);
  const words = seen.some((status) => isWord(status.written));
  const found: { entry: Entry; how: string }[] = [];
  for (const status of seen) {
    const entry = entryOf(status, words);
    if (entry === undefined || found.some((known) => known.entry.code === entry.code)) continue;
    found.push({ entry, how: status.how });
  }
  found.sort((a, b) => a.entry.code - b.entry.code);
  found.forEach((status, index) => log.note(["statuses", "table", index], status.how));
  const table = found.map((status) => status.entry);
  if (!table.some((entry) => entry.code === 0 && entry.class === "pending")) {
    log.miss("the pending status: the send answer did not write 0 for a new order");
    return log.finding(undefined);
  }
  for (const cls of ["success", "failed", "reversed"] as const) {
    if (!table.some((entry) => entry.class === cls)) {
      log.miss(`a ${cls} status: no probe order reached one (add it from the provider's documentation)`);
    }
  }
  log.note(["statuses", "values"], `the lookup writes ${words ? "words" : "numbers"}`);
  return log.finding({ values: words ? "word" : "code", table });
}
