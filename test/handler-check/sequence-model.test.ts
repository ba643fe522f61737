/**
 * The delivery sequences: what the simulator announces for a plan, and how a
 * plan's numbers become steps. Shrinking reaches the plain sequence: every
 * message once, in the order it happened.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildSteps, type SequencePlan } from "../../src/handler-check/sequence-model.ts";
import { type SimulatorTruth, startSimulatorTruth, type TrueOrder } from "../../src/handler-check/simulator-truth.ts";
import { createStandardDialect } from "../../src/handler-check/delivery-dialect.ts";

let truth: SimulatorTruth;
let orders: TrueOrder[];
const PLAIN: SequencePlan = { orders: [], extras: [], downtime: null, withheld: [] };

beforeAll(async () => {
  truth = await startSimulatorTruth({ dialect: createStandardDialect(), referencePrefix: "model" });
  orders = await truth.realise([
    { pending: [3], final: 8, amount: 100 },
    { pending: [], final: 2, amount: 50 },
  ]);
});

afterAll(() => truth.close());

const statuses = (plan: SequencePlan) =>
  buildSteps(plan, orders).map((step) => `${step.kind}:${step.deliveries.map((d) => d.message.status).join("+")}`);

test("the simulator announces every status an order went through, Reversed after Success, each with its own id", () => {
  expect(orders.map((order) => order.finalStatus)).toEqual([8, 2]);
  expect(orders[0]?.messages.map((message) => [message.status, message.final])).toEqual([
    [3, false],
    [20, true],
    [8, true],
  ]);
  const ids = orders.flatMap((order) => order.messages.map((message) => message.id));
  expect(new Set(ids).size).toBe(ids.length);
  expect(JSON.parse(orders[1]?.messages[0]?.body ?? "{}")).toMatchObject({ reference: "model-2", status: 2 });
});

test("the plain plan delivers every message once, in the order it happened", () => {
  expect(statuses(PLAIN)).toEqual(["deliver:3", "deliver:20", "deliver:8", "deliver:2"]);
});

test("sort keys put a newer status before an older one", () => {
  const keyed = (keys: number[]) => ({ order: { pending: [], final: 20, amount: 10 }, keys });
  expect(statuses({ ...PLAIN, orders: [keyed([0, 5, 1]), keyed([0])] })).toEqual([
    "deliver:3",
    "deliver:2",
    "deliver:8",
    "deliver:20",
  ]);
});

test("downtime turns queued first deliveries into one burst", () => {
  expect(statuses({ ...PLAIN, downtime: { from: 1, length: 2 } })).toEqual(["deliver:3", "burst:20+8", "deliver:2"]);
});

test("extras add copies, a lost answer with its retry, and forgeries", () => {
  const plan: SequencePlan = {
    ...PLAIN,
    extras: [
      { kind: "concurrent", message: 1, copies: 3, at: 0 },
      { kind: "answer_lost", message: 2, after: 0, at: 2 },
      { kind: "forged", message: 3, forgery: "stale_timestamp", at: 7 },
    ],
  };
  expect(statuses(plan)).toEqual([
    "concurrent:20+20+20",
    "deliver:3",
    "answer_lost:8",
    "retry:8",
    "deliver:20",
    "deliver:8",
    "deliver:2",
    "forged:2",
  ]);
});

test("a withheld order's last message is never delivered, not even as a copy", () => {
  const plan: SequencePlan = { ...PLAIN, withheld: [0], extras: [{ kind: "again", message: 0, at: 3 }] };
  expect(statuses(plan)).toEqual(["deliver:3", "deliver:20", "deliver:2", "again:3"]);
});
