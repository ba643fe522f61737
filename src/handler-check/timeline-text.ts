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

function labelOf(entry: TimelineEntry): string {
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

function answersOf(entry: TimelineEntry): string {
  const answers = entry.answer === undefined ? entry.deliveries.map((d) => d.answer) : [entry.answer];
  return answers.map(describeAnswer).join("; ");
}

function curlOf(handlerUrl: string, delivery: SentDelivery): string {
  const { headers, body } = delivery.request;
  return toCurl({ method: "POST", path: "", headers, body }, { baseUrl: handlerUrl, secrets: new Map() });
}

/** The timeline, one numbered step per entry, indented by `indent`. */
export function timelineLines(failure: HandlerCheckFailure, handlerUrl: string, indent: string): string[] {
  const deliveries = failure.timeline.reduce((count, entry) => count + entry.deliveries.length, 0);
  const lines = [
    `${indent}timeline: ${deliveries} deliver${deliveries === 1 ? "y" : "ies"} in ${failure.timeline.length} step${failure.timeline.length === 1 ? "" : "s"}`,
  ];
  failure.timeline.forEach((entry, index) => {
    const believed = entry.believed
      .map(({ reference, believed: b }) => `${reference}: ${describeBelief(b)}`)
      .join("; ");
    lines.push(
      `${indent}${index + 1}. ${labelOf(entry)}`,
      `${indent}   answer: ${answersOf(entry)}`,
      `${indent}   believed after: ${believed === "" ? "(nothing read)" : believed}`,
    );
    // Copies carry the same request: one curl line says it.
    const distinct = new Map(
      entry.deliveries.map((d) => [`${d.request.headers["webhook-signature"]}${d.request.body}`, d]),
    );
    for (const delivery of distinct.values()) lines.push(`${indent}   ${curlOf(handlerUrl, delivery)}`);
  });
  const truth = failure.orders.map((order) => `${order.reference} ${describeStatus(order.finalStatus)}`);
  lines.push(`${indent}the simulator's final statuses: ${truth.join("; ")}`);
  return lines;
}
