/**
 * The dispatcher's options normalised once: the defaults filled in, text
 * parsed, and an unusable value refused before anything is sent.
 */
import { expect, test } from "vitest";
import { DEFAULT_RETRY_SCHEDULE } from "../../src/webhooks/schedule.ts";
import { webhookSettings } from "../../src/webhooks/webhook-settings.ts";

test("no options: Standard Webhooks' schedule, 15 s per attempt, ±10 % jitter and the documented caps", () => {
  const settings = webhookSettings({});
  expect(settings).toMatchObject({
    schedule: DEFAULT_RETRY_SCHEDULE,
    timeoutMs: 15_000,
    jitter: 0.1,
    intermediate: false,
    maxConcurrentAttempts: 256,
    maxConcurrentPerEndpoint: 32,
    maxQueuedPerEndpoint: 1000,
  });
  expect(Object.isFrozen(settings)).toBe(true);
});

test("text forms are parsed, and given values kept", () => {
  const settings = webhookSettings({ schedule: "0,100ms,1s", timeout: "500ms", jitter: 0, maxQueuedPerEndpoint: 3 });
  expect(settings).toMatchObject({ schedule: [0, 100, 1000], timeoutMs: 500, jitter: 0, maxQueuedPerEndpoint: 3 });
});

test("an unusable jitter, schedule or timeout is a RangeError", () => {
  expect(() => webhookSettings({ jitter: 1.5 })).toThrow(RangeError);
  expect(() => webhookSettings({ schedule: "" })).toThrow(RangeError);
  expect(() => webhookSettings({ timeout: 0 })).toThrow(RangeError);
});
