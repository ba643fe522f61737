import { describe, expect, it } from "vitest";
import type { WebhookObservations } from "../../src/compare/observe-webhooks.ts";
import { judgeWebhooks, WEBHOOK_RULES } from "../../src/compare/judge.ts";

/** Forty orders told once each, no repeats: what our simulator's receiver sees. */
const told: WebhookObservations = {
  eventsPerOrder: { Success: { "1": 36 }, Failed: { "1": 4 } },
  arrivalsPerDelivery: { "1": 40 },
  repeatGapsMs: [],
  repeatsAfter2xx: 0,
  statusChanges: 40,
  duplicatedChanges: 0,
  eventNames: { "airtime.status": 40 },
  requests: 40,
  invalidSignatures: 0,
};

function divergences(simulator: WebhookObservations, target: WebhookObservations): string[] {
  return judgeWebhooks(simulator, target)
    .filter((result) => !result.agrees)
    .map((result) => result.rule);
}

describe("judgeWebhooks", () => {
  it("finds nothing between two receivers that saw the same", () => {
    expect(divergences(told, told)).toEqual([]);
    expect(judgeWebhooks(told, told).every((result) => result.operation === "webhook")).toBe(true);
  });

  it("leaves a final status only one side reaches to the final statuses rule", () => {
    const withTimeouts = { ...told, eventsPerOrder: { ...told.eventsPerOrder, Timeout: { "0": 6 } } };
    expect(divergences(told, withTimeouts)).toEqual([]);
  });

  it("reports retries spaced five times wider", () => {
    const repeated = (gap: number): WebhookObservations => ({
      ...told,
      arrivalsPerDelivery: { "1": 30, "2": 10 },
      repeatGapsMs: Array.from({ length: 10 }, (_, i) => gap + i),
    });
    expect(divergences(repeated(200), repeated(1000))).toEqual([WEBHOOK_RULES.spacing]);
  });

  it("reports status changes sent again under new delivery ids", () => {
    expect(divergences(told, { ...told, duplicatedChanges: 20 })).toEqual([WEBHOOK_RULES.duplicates]);
  });

  it("reports an event name the simulator never sends", () => {
    const named = { ...told, eventNames: { "airtime.status": 40, "balance.low": 5 } };
    expect(divergences(told, named)).toEqual([WEBHOOK_RULES.eventNames]);
  });
});
