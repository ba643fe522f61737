/**
 * What `airtime-harness trigger` does to a simulator, running or in-process
 * alike, through its public and admin APIs only:
 *
 *  1. upload a one-rule scenario that holds the order pending (so nothing but
 *     the forced status finalises it) and carries the webhook faults asked for;
 *  2. place an order as the customer, naming that scenario in `X-Sim-Scenario`;
 *  3. force the final status through the admin transition;
 *  4. follow the deliveries: on a virtual clock by advancing it to each next
 *     attempt, on a real one by waiting (bounded) for the attempts to happen;
 *  5. read back the order and every delivery with its attempts;
 *  6. remove the scenario it loaded (the order keeps the effects it was given).
 */
import { randomBytes } from "node:crypto";
import { compileProfile, type CompiledProfile } from "../contract/provider-profile/compile.ts";
import { type AdminClient, AdminApiError } from "../harness/admin-client.ts";
import { createHttpClient, type HttpOutcome } from "../harness/http-client.ts";
import { hashSeed } from "../scenarios/engine.ts";
import type { ScenarioFileInput } from "../scenarios/schema.ts";
import type { AdminDelivery, AdminDeliveryDetail } from "../webhooks/admin-schemas.ts";

export interface TriggerOrder {
  readonly amount: number;
  readonly account: string;
  readonly reference: string;
  readonly service?: string;
  readonly shortcode?: string;
}

export interface TriggerFaults {
  /** Extra copies of the webhook, one `webhook-id` throughout (0 = none), as the scenario effect counts them. */
  readonly duplicates: number;
  readonly badSignature: boolean;
  /** Extra delay before the first attempt, ms. */
  readonly delayMs?: number;
}

export interface TriggerRequest {
  readonly url: string;
  readonly admin: AdminClient;
  readonly customerId: string;
  /** The statuses to force, in order (a reversal goes through success). */
  readonly path: readonly number[];
  readonly order: TriggerOrder;
  readonly faults: TriggerFaults;
  /** Real clock only: the longest wait for attempts to happen. */
  readonly waitMs: number;
  /** How the simulator's public answers are read: the dialect it serves (our spec's by default). */
  readonly provider?: CompiledProfile | undefined;
}

export interface TriggerReport {
  readonly clock: "real" | "virtual";
  /** How far a virtual clock was moved to run the attempts. */
  readonly advancedMs: number;
  readonly webhookUrl: string;
  /** The order as the public lookup returns it. */
  readonly order: unknown;
  readonly deliveries: readonly AdminDeliveryDetail[];
  /** Every delivery was answered 2xx. */
  readonly ok: boolean;
}

/** A reason to stop, with the exit code it deserves (2: setup or usage, 1: the webhook side). */
export class TriggerProblem extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** The scenario `trigger` loads: the order stays pending until forced; the faults ride on its webhooks. */
function triggerScenario(faults: TriggerFaults): ScenarioFileInput {
  const webhook = {
    ...(faults.duplicates > 0 ? { duplicate: faults.duplicates } : {}),
    ...(faults.badSignature ? { badSignature: true } : {}),
    ...(faults.delayMs === undefined || faults.delayMs === 0 ? {} : { delay: `${faults.delayMs}ms` }),
  };
  const effects = { stuckPending: true, ...(Object.keys(webhook).length === 0 ? {} : { webhook }) };
  // Its own name per run: a run removes only the scenario it loaded, never one another run still needs.
  const name = `trigger-${hashSeed(JSON.stringify(effects), 0).toString(16).padStart(8, "0")}-${randomBytes(3).toString("hex")}`;
  return {
    name,
    description: "Loaded by `airtime-harness trigger`: holds the order pending until its status is forced.",
    rules: [{ name: "hold-for-trigger", effects }],
  };
}

/** Admin failures → one clear line: unreachable and refused tokens are setup problems. */
function explain(error: unknown, url: string): never {
  if (!(error instanceof AdminApiError)) throw error;
  if (error.status === undefined) {
    throw new TriggerProblem(`cannot reach the simulator at ${url} (${error.code ?? "network error"})`, 2);
  }
  if (error.status === 401 || error.status === 403) {
    throw new TriggerProblem(
      `the simulator at ${url} refused the admin token (HTTP ${error.status}); use the one \`serve\` printed`,
      2,
    );
  }
  throw new TriggerProblem(error.message, 2);
}

function describeAnswer(outcome: HttpOutcome): string {
  if (outcome.kind === "network_error") return `${outcome.code} ${outcome.message}`;
  const body = outcome.json as { code?: unknown; detail?: unknown; message?: unknown } | undefined;
  const detail = [body?.code, body?.detail ?? body?.message].filter((part) => typeof part === "string").join(": ");
  return `HTTP ${outcome.status}${detail === "" ? "" : ` ${detail}`}`;
}

/** 11 copies of a message times a long retry schedule, with room to spare. */
const MAX_ADVANCES = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every attempt due: to the end of the schedule on a virtual clock, until `waitMs` on a real one. */
async function followDeliveries(request: TriggerRequest, orderId: string, mode: "real" | "virtual") {
  const deadline = Date.now() + request.waitMs;
  let advancedMs = 0;
  let advances = 0;
  for (;;) {
    const pending = (await request.admin.listDeliveries({ order: orderId })).filter(
      (delivery: AdminDelivery) => delivery.state === "pending",
    );
    if (pending.length === 0) return advancedMs;
    const next = Math.min(...pending.map((d) => (d.nextAttemptAt === null ? 0 : Date.parse(d.nextAttemptAt))));
    if (mode === "virtual") {
      // Each advance runs at least one attempt: more than every attempt of every copy means something is stuck.
      if (++advances > MAX_ADVANCES) return advancedMs;
      const now = (await request.admin.clock()).now;
      const step = Math.max(0, next - now);
      await request.admin.advance(step);
      advancedMs += step;
      continue;
    }
    const remaining = deadline - Date.now();
    const unattempted = pending.some((delivery) => delivery.attemptCount === 0);
    // A retry due after the deadline is reported as pending rather than waited for.
    if (remaining <= 0 || (!unattempted && next - Date.now() > remaining)) return advancedMs;
    await sleep(Math.min(100, remaining));
  }
}

export async function runTrigger(request: TriggerRequest): Promise<TriggerReport> {
  const { admin, url } = request;
  const customer = await admin.getCustomer(request.customerId).catch((error: unknown) => {
    if (error instanceof AdminApiError && error.status === 404) {
      throw new TriggerProblem(`the simulator has no customer '${request.customerId}'`, 2);
    }
    return explain(error, url);
  });
  if (customer.webhook === null) {
    throw new TriggerProblem(
      `customer '${customer.id}' has no webhook endpoint: start serve with --webhook-url, or run trigger with --forward-to URL --secret whsec_… instead`,
      2,
    );
  }
  const token = customer.tokens[0];
  if (token === undefined) throw new TriggerProblem(`customer '${customer.id}' has no static token`, 2);
  const scenario = triggerScenario(request.faults);
  const { mode } = await admin.clock().catch((error: unknown) => explain(error, url));
  await admin.loadScenario(scenario).catch((error: unknown) => explain(error, url));
  try {
    return await placeAndForce(request, { token, scenario: scenario.name, mode, webhookUrl: customer.webhook.url });
  } finally {
    // A failed removal must not hide the report or the problem the run ended with.
    await admin.removeScenario(scenario.name).catch(() => undefined);
  }
}

/** Steps 2–5: the order under the loaded scenario, its forced status, and what was delivered. */
async function placeAndForce(
  request: TriggerRequest,
  run: { token: string; scenario: string; mode: "real" | "virtual"; webhookUrl: string },
): Promise<TriggerReport> {
  const { admin, url } = request;
  const { token, mode } = run;
  const api = createHttpClient(url);
  const { order } = request;
  const placed = await api.send({
    method: "POST",
    path: "/v1/airtime",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "idempotency-key": order.reference,
      "x-sim-scenario": run.scenario,
    },
    body: JSON.stringify({ ...order, currency: "KES" }),
  });
  const provider = request.provider ?? compileProfile();
  const id =
    placed.kind === "response" && placed.status === 200 ? provider.readOrder("order", placed.json).id : undefined;
  if (typeof id !== "string") throw new TriggerProblem(`the simulator refused the order: ${describeAnswer(placed)}`, 2);

  for (const status of request.path) {
    const moved = await admin.transition(id, { status }).catch((error: unknown) => explain(error, url));
    if (moved.kind === "refused") throw new TriggerProblem(`cannot force status ${status}: ${moved.detail}`, 1);
  }
  const advancedMs = await followDeliveries(request, id, mode);

  const lookup = await api.send({
    method: "GET",
    path: `/v1/airtime/${encodeURIComponent(order.reference)}`,
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  if (lookup.kind !== "response" || lookup.status !== 200) {
    throw new TriggerProblem(`the order lookup failed: ${describeAnswer(lookup)}`, 1);
  }
  const listed = await admin.listDeliveries({ order: id });
  const deliveries = await Promise.all(listed.map((delivery) => admin.getDelivery(delivery.id)));
  return {
    clock: mode,
    advancedMs,
    webhookUrl: run.webhookUrl,
    order: lookup.json,
    deliveries,
    ok: deliveries.length > 0 && deliveries.every((delivery) => delivery.state === "delivered"),
  };
}
