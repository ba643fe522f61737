/**
 * The foreign provider (test/harness/foreign/) and the simulator serving
 * that provider's profile answer one scripted sequence the same way: the
 * same HTTP statuses and the same bodies, once ids, times, free-text error
 * messages and the fields a profile has no place for (the provider's own
 * names for the account and operator, its shortcode) are set aside. Every
 * field the foreign provider writes must be in the simulator's answer with
 * the same value; the simulator may add its own companions beside them.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { type ForeignTarget, startForeignTarget } from "./foreign/foreign-target.ts";

/** Ids and times differ by nature; messages are free text; the rest has no place in a profile. */
const SET_ASIDE = new Set(["transactionId", "createdAt", "updatedAt", "details", "msisdn", "network", "shortcode"]);

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly token: "primary" | "other" | "none";
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

const ORDER = {
  account: "0712000101",
  service: "safaricom",
  amount: 100,
  currency: "KES",
  reference: "SCRIPT-ORDER-1",
};
const SCRIPT: readonly Step[] = [
  {
    name: "place an order",
    method: "POST",
    path: "/v1/airtime",
    token: "primary",
    headers: { "idempotency-key": "script-key-1" },
    body: ORDER,
  },
  {
    name: "replay it",
    method: "POST",
    path: "/v1/airtime",
    token: "primary",
    headers: { "idempotency-key": "script-key-1" },
    body: ORDER,
  },
  { name: "look it up while pending", method: "GET", path: "/v1/airtime/SCRIPT-ORDER-1", token: "primary" },
  {
    name: "an amount with decimals",
    method: "POST",
    path: "/v1/airtime",
    token: "primary",
    body: { ...ORDER, reference: "SCRIPT-BAD-1", amount: 10.5 },
  },
  { name: "an unknown reference", method: "GET", path: "/v1/airtime/NO-SUCH-ORDER", token: "primary" },
  { name: "a wrong method", method: "DELETE", path: "/v1/balance", token: "primary" },
  { name: "no token", method: "GET", path: "/v1/balance", token: "none" },
  {
    name: "more than the balance",
    method: "POST",
    path: "/v1/airtime",
    token: "other",
    body: { ...ORDER, reference: "SCRIPT-POOR-1", amount: 5000 },
  },
];

/** The body with every set-aside member removed, and an error's free-text message. */
function comparable(value: unknown, inError = false): unknown {
  if (Array.isArray(value)) return value.map((item) => comparable(item, inError));
  if (typeof value !== "object" || value === null) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (SET_ASIDE.has(key) || (inError && key === "message")) continue;
    kept[key] = comparable(member, inError || key === "error");
  }
  return kept;
}

async function answer(base: string, step: Step, tokens: Record<"primary" | "other", string>): Promise<Answer> {
  const headers: Record<string, string> = { ...step.headers };
  if (step.token !== "none") headers.authorization = `Bearer ${tokens[step.token]}`;
  if (step.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}${step.path}`, {
    method: step.method,
    headers,
    ...(step.body === undefined ? {} : { body: JSON.stringify(step.body) }),
  });
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0] ?? "";
  return { status: response.status, contentType, body: await response.json() };
}

let foreign: ForeignTarget;
let sim: Simulator;
let simUrl: string;
const SIM_TOKENS = { primary: "script-primary-0001", other: "script-other-00001" };

beforeAll(async () => {
  // Finals far away: both still pending when the lookup comes.
  foreign = await startForeignTarget({ finalDelayMs: { min: 600_000, max: 600_000 } });
  const loaded = parseProviderProfile(
    await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8"),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  sim = await createSimulator({
    provider: loaded.profile,
    clock: "virtual",
    seed: 1,
    demo: false,
    defaultPlugins: false,
    customers: [
      { id: "primary", token: SIM_TOKENS.primary, balance: 10_000_000 },
      { id: "other", token: SIM_TOKENS.other, balance: 1_000 },
    ],
  });
  simUrl = await sim.listen(0, "127.0.0.1");
});

afterAll(async () => {
  await sim.close();
  await foreign.close();
});

test("one scripted sequence: the same statuses and bodies from the foreign provider and the simulator", async () => {
  for (const step of SCRIPT) {
    const theirs = await answer(foreign.url, step, foreign.tokens);
    const ours = await answer(simUrl, step, SIM_TOKENS);
    expect({ step: step.name, status: ours.status, type: ours.contentType }).toEqual({
      step: step.name,
      status: theirs.status,
      type: theirs.contentType,
    });
    // Every member the provider writes, at the same place with the same value; the simulator may write more.
    expect({ step: step.name, body: comparable(ours.body) }).toMatchObject({
      step: step.name,
      body: comparable(theirs.body) as object,
    });
  }
});
