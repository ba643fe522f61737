import { expect, it } from "vitest";
import {
  type AttemptContext,
  jobIdFor,
  nextState,
  outcomeOf,
  plannedRetry,
} from "../../src/webhooks/delivery-transitions.ts";
import type { Delivery } from "../../src/webhooks/ports.ts";
import { delivery } from "./delivery-store-contract.ts";

const pending: Delivery = delivery("dlv_1", "acme", {
  messageId: "msg_1",
  orderId: "ord_1",
  reference: "R-1",
  nextJobId: jobIdFor("dlv_1", 0),
});

const scheduled: AttemptContext = {
  trigger: "schedule",
  scheduledAt: 0,
  scheduleIndex: 0,
  jobId: jobIdFor("dlv_1", 0),
};
const manual: AttemptContext = { trigger: "redeliver", scheduledAt: 0, scheduleIndex: null, jobId: null };

it("classifies answers: 2xx delivered, 410 gone, anything else (and no answer) failed", () => {
  expect(outcomeOf({ kind: "response", status: 204, latencyMs: 1 })).toBe("delivered");
  expect(outcomeOf({ kind: "response", status: 410, latencyMs: 1 })).toBe("gone");
  for (const status of [301, 400, 429, 500, 503])
    expect(outcomeOf({ kind: "response", status, latencyMs: 1 })).toBe("failed");
  expect(outcomeOf({ kind: "error", error: "timeout", latencyMs: 1 })).toBe("failed");
});

it("a failed scheduled attempt books the next slot from when it finished, or fails the delivery when none is left", () => {
  expect(nextState(pending, scheduled, "failed", 1000, 100, 3)).toMatchObject({
    state: "pending",
    attemptCount: 1,
    scheduleIndex: 1,
    nextAttemptAt: 1100,
    nextJobId: "dlv_1/1",
  });
  expect(nextState(pending, scheduled, "failed", 1000, undefined, 3)).toMatchObject({
    state: "failed",
    reason: "no 2xx after 3 scheduled attempts",
    nextAttemptAt: null,
    nextJobId: null,
  });
});

it("an attempt from a superseded chain, or a manual one, never books a slot", () => {
  const moved = { ...pending, nextJobId: "dlv_1/1", scheduleIndex: 1 };
  expect(nextState(moved, scheduled, "failed", 1000, 100, 3)).toMatchObject({ nextJobId: "dlv_1/1", scheduleIndex: 1 });
  expect(nextState(pending, manual, "failed", 1000, undefined, 3)).toMatchObject({
    state: "pending",
    nextJobId: "dlv_1/0",
  });
  const failed = { ...pending, state: "failed" as const, nextJobId: null };
  expect(nextState(failed, manual, "failed", 1000, undefined, 3)).toMatchObject({
    state: "failed",
    reason: "redelivery failed",
  });
});

it("delivered is final, and 410 disables", () => {
  const delivered = nextState(pending, scheduled, "delivered", 1000, 100, 3);
  expect(delivered).toMatchObject({ state: "delivered", deliveredAt: 1000, nextJobId: null });
  expect(nextState(delivered, manual, "failed", 2000, undefined, 3)).toMatchObject({
    state: "delivered",
    attemptCount: 2,
  });
  expect(nextState(pending, scheduled, "gone", 1000, 100, 3)).toMatchObject({
    state: "disabled",
    reason: "the endpoint answered 410 Gone",
    nextJobId: null,
  });
});

it("plans the retry a failed scheduled attempt leads to, as nextState records it, and none otherwise", () => {
  const failed = nextState(pending, scheduled, "failed", 10, 100, 3);
  expect(plannedRetry("dlv_1", scheduled, "failed", 10, 100)).toEqual({
    jobId: failed.nextJobId,
    scheduleIndex: failed.scheduleIndex,
    dueAt: failed.nextAttemptAt,
  });
  expect(plannedRetry("dlv_1", scheduled, "failed", 10, undefined)).toBeUndefined();
  expect(plannedRetry("dlv_1", scheduled, "delivered", 10, 100)).toBeUndefined();
  expect(plannedRetry("dlv_1", manual, "failed", 10, 100)).toBeUndefined();
});
