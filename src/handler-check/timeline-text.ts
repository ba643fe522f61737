/**
 * A failure's timeline as people read it: each step (what was delivered,
 * the handler's answer, what the app believed right after) with a curl
 * line per delivery. Shared by the console and JUnit reports.
 */
import { toCurl } from "../harness/transcript.ts";
import type { HandlerCheckFailure } from "./check-handler.ts";
import { describeAnswer } from "./handler-client.ts";
import { describeBelief, describeMessage, describeStatus, forgeryText, type SentDelivery } from "./judge.ts";
import type { TimelineEntry } from "./run-sequence.ts";

/** What a step did, in words: `2 copies at once: msg_… (R-1: 20 Success)`. */
export function describeStep(entry: TimelineEntry): string {
  const first = entry.deliveries[0];
  const what = first === undefined ? "" : ` ${describeMessage(first.message)}`;
  const count = entry.deliveries.length;
  switch (entry.kind) {
    case "deliver":
      return `deliver${what}`;
    case "again":
      return `the same message again:${what}`;
    case "concurrent":
      return `${count} copies at once:${what}`;
    case "answer_lost":
      return `deliver${what}; its answer is lost (the sender timed out)`;
    case "retry":
      return `retry after the lost answer:${what}`;
    case "burst":
      return `burst after downtime, ${count} queued deliveries at once: ${entry.deliveries.map((d) => describeMessage(d.message)).join(", ")}`;
    case "forged":
      return `forged, ${first?.forgery === undefined ? "" : forgeryText(first.forgery)}:${what}`;
    case "reconcile":
      return "ask the handler to reconcile its orders by lookup";
    default: {
      const unreachable: never = entry.kind;
      throw new Error(`unknown step ${String(unreachable)}`);
    }
  }
}

/** The handler's answers to a step, in order. */
export function describeAnswers(entry: TimelineEntry): string {
  const answers = entry.answer === undefined ? entry.deliveries.map((d) => d.answer) : [entry.answer];
  return answers.map(describeAnswer).join("; ");
}

/** One curl line per distinct request of a step: copies carry the same request. */
export function curlLines(handlerUrl: string, entry: TimelineEntry): string[] {
  const distinct = new Map(
    entry.deliveries.map((d) => [`${d.request.headers["webhook-signature"]}${d.request.body}`, d]),
  );
  return [...distinct.values()].map((delivery) => curlOf(handlerUrl, delivery));
}

function curlOf(handlerUrl: string, delivery: SentDelivery): string {
  const { headers, body } = delivery.request;
  return toCurl({ method: "POST", path: "", headers, body }, { baseUrl: handlerUrl, secrets: new Map() });
}

/** What the app believed right after a step, for the orders it touched. */
export function describeBeliefs(entry: TimelineEntry): string {
  const believed = entry.believed.map(({ reference, believed: b }) => `${reference}: ${describeBelief(b)}`);
  return believed.length === 0 ? "(nothing read)" : believed.join("; ");
}

export function describeTruth(failure: HandlerCheckFailure): string {
  return failure.orders.map((order) => `${order.reference} ${describeStatus(order.finalStatus)}`).join("; ");
}

/** The timeline, one numbered step per entry, indented by `indent`. */
export function timelineLines(failure: HandlerCheckFailure, handlerUrl: string, indent: string): string[] {
  const deliveries = failure.timeline.reduce((count, entry) => count + entry.deliveries.length, 0);
  const lines = [
    `${indent}timeline: ${deliveries} deliver${deliveries === 1 ? "y" : "ies"} in ${failure.timeline.length} step${failure.timeline.length === 1 ? "" : "s"}`,
  ];
  failure.timeline.forEach((entry, index) => {
    lines.push(
      `${indent}${index + 1}. ${describeStep(entry)}`,
      `${indent}   answer: ${describeAnswers(entry)}`,
      `${indent}   believed after: ${describeBeliefs(entry)}`,
      ...curlLines(handlerUrl, entry).map((curl) => `${indent}   ${curl}`),
    );
  });
  lines.push(`${indent}the simulator's final statuses: ${describeTruth(failure)}`);
  return lines;
}
