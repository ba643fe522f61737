/**
 * Reading what the app believes: from a state URL or a command, by JSON
 * pointers; an unknown order is a 404, empty output or `null`; anything
 * unreadable is a setup error naming where it came from.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createStateReader, readNumber, StateReadError } from "../../src/handler-check/believed-state.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { type ExampleHandler, startExampleHandler } from "./example-handlers.ts";

let handler: ExampleHandler;

beforeAll(async () => {
  handler = await startExampleHandler(generateWebhookSecret());
});
afterAll(() => handler.close());

/** A command that prints a JSON document per reference, as a database client would. */
const PRINT = `node -e 'const r = process.env.AIRTIME_REFERENCE; console.log(r === "known" ? JSON.stringify({ order: { code: "8" }, credits: 2 }) : r === "odd" ? "{\\"order\\":{\\"code\\":\\"pending\\"}}" : "")'`;

test("a state URL's 404 is an order the app does not know", async () => {
  const state = createStateReader({
    source: { kind: "url", template: handler.stateTemplate },
    statusPointer: "/status",
    effectsPointer: "/credits",
    timeoutMs: 5_000,
    readStatus: readNumber,
  });
  expect(await state.read("never-seen")).toEqual({ status: null, effects: null });
});

test("a command's JSON is read by the pointers; empty output is an unknown order", async () => {
  const state = createStateReader({
    source: { kind: "command", command: PRINT },
    statusPointer: "/order/code",
    effectsPointer: "/credits",
    timeoutMs: 10_000,
    readStatus: readNumber,
  });
  expect(await state.read("known")).toEqual({ status: 8, effects: 2 });
  expect(await state.read("unknown")).toEqual({ status: null, effects: null });
  await expect(state.read("odd")).rejects.toThrow(/\/order\/code is "pending", not a status code/);
});

test("a state endpoint that cannot be reached, or a command that fails, is a setup error", async () => {
  const unreachable = createStateReader({
    source: { kind: "url", template: "http://127.0.0.1:9/orders/{reference}" },
    statusPointer: "/status",
    timeoutMs: 5_000,
    readStatus: readNumber,
  });
  await expect(unreachable.read("R-1")).rejects.toBeInstanceOf(StateReadError);
  const failing = createStateReader({
    source: { kind: "command", command: "echo no such table >&2; exit 3" },
    statusPointer: "/status",
    timeoutMs: 5_000,
    readStatus: readNumber,
  });
  await expect(failing.read("R-1")).rejects.toThrow(/failed: no such table/);
});
