/**
 * Sends the planned steps to one side (the target, or the reference
 * simulator) and records what it answered, in classes that mean the same on
 * both sides: ids, references, times and request ids are never recorded as
 * such, so they can never show up as a difference. Each placed order is then
 * polled until it is final, which gives the finals reached and the
 * pending → final times.
 */
import { createHttpClient } from "../harness/http-client.ts";
import { randomUUID } from "node:crypto";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { toRecipient } from "../harness/accounts.ts";
import { type AnswerShape, shapeOf } from "./answer-shapes.ts";
import { collectWebhooks, type WebhookObservations, type WebhookRecorder } from "./observe-webhooks.ts";
import type { Step, StepKind } from "./plan.ts";

export interface StepRecord {
  readonly kind: StepKind;
  /** The answer's class: `placed`, `replayed same id`, `refused 422 INVALID_REQUEST` … */
  readonly outcome: string;
  /** The request, as a curl line with the token left as `$TOKEN`. */
  readonly curl: string;
  /** Which planned run the step belongs to, so a divergence can be shown with the steps that led to it. */
  readonly run?: number;
  /** The answer's JSON structure, and the kind of answer it is compared within (the outcome; a lookup's with its status). */
  readonly shape?: { readonly of: string; readonly lines: AnswerShape };
}

export interface SideObservations {
  readonly steps: readonly StepRecord[];
  /** Final status name → orders that reached it. */
  readonly finals: Readonly<Record<string, number>>;
  /** Status class (success, failed, reversed) → orders that reached a final of it. */
  readonly finalClasses: Readonly<Record<string, number>>;
  /** Pending → final, ms, measured from the send to the first lookup that shows the final (each exchange by its middle). */
  readonly finalTimesMs: readonly number[];
  /**
   * Each of those times' observation error, ms: half the span between the
   * last lookup that showed the order pending and the first that showed it
   * final. It grows
   * with the lookup interval and with how late this process's event loop ran
   * the polls, so it tells how precisely the poller saw the target, not what
   * the target did.
   */
  readonly finalTimeErrorsMs: readonly number[];
  /** The same times by the final status name they ended in, so a calibration can give an outcome its own timing. */
  readonly finalTimesByStatus: Readonly<Record<string, readonly number[]>>;
  /** Orders still pending when the settle time ran out. */
  readonly unsettled: number;
  /** What the side's webhook receiver saw about its final orders; absent when none listened. */
  readonly webhooks?: WebhookObservations | undefined;
}

export interface ObserveOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly profile: CompiledProfile;
  readonly runs: readonly (readonly Step[])[];
  /** How long to wait for placed orders to become final. */
  readonly settleMs: number;
  /** The lookup interval while settling: the resolution of the measured times. */
  readonly pollMs: number;
  /** The receiver the side posts its webhooks to, and how long to wait for them once orders are final. */
  readonly webhooks?: { readonly recorder: WebhookRecorder; readonly timeoutMs: number; readonly quietMs: number };
  /** The only recipient numbers orders may go to (`--accounts`); step i of a run uses the (i mod n)-th. */
  readonly accounts: readonly string[];
  /** Per-request timeout (`--request-timeout`); a target that does not answer in time ends the comparison. */
  readonly requestTimeoutMs: number;
  /** Told after each run is sent, and when only settling is left. */
  readonly onProgress?: ((event: ObserveProgress) => void) | undefined;
}

export type ObserveProgress =
  | { readonly phase: "sent"; readonly run: number; readonly runs: number }
  | { readonly phase: "settling"; readonly orders: number };

interface Placed {
  readonly reference: string;
  readonly key: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly id: string | undefined;
  /** The middle of the send exchange: the target placed the order at some moment between its request and its answer. */
  readonly placedAt: number;
  readonly status: number | undefined;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export interface Request {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly token: boolean;
  readonly key?: string;
  readonly body?: unknown;
}

const ACCOUNT = "0712345678";

/** The recipient of step `index` of a run: the (index mod n)-th of `--accounts`, or the default account. */
export function accountOf(options: Pick<ObserveOptions, "accounts">, index: number): string {
  const { accounts } = options;
  return accounts.length === 0 ? ACCOUNT : (accounts[index % accounts.length] as string);
}

export function curlLine(baseUrl: string, request: Request): string {
  const parts = [`curl -sS -X ${request.method} '${baseUrl}${request.path}'`];
  if (request.token) parts.push(`-H 'Authorization: Bearer $TOKEN'`);
  if (request.key !== undefined) parts.push(`-H 'Idempotency-Key: ${request.key}'`);
  if (request.body !== undefined)
    parts.push(`-H 'Content-Type: application/json' -d '${JSON.stringify(request.body)}'`);
  return parts.join(" ");
}

export async function call(
  options: Pick<ObserveOptions, "baseUrl" | "token" | "requestTimeoutMs">,
  request: Request,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.token) headers.authorization = `Bearer ${options.token}`;
  if (request.key !== undefined) headers["idempotency-key"] = request.key;
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const outcome = await createHttpClient(options.baseUrl, { timeoutMs: options.requestTimeoutMs }).send({
    method: request.method,
    path: request.path,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  // A target that does not answer ends the comparison (the command says so and exits 2).
  if (outcome.kind === "network_error") {
    throw new Error(
      outcome.code === "ETIMEDOUT" ? `timeout: ${outcome.message}` : `${outcome.code}: ${outcome.message}`,
    );
  }
  return { status: outcome.status, body: outcome.json };
}

/** The class of a refusal: its HTTP status and the error code the profile reads. */
function refusal(profile: CompiledProfile, answer: Answer): string {
  const code = profile.readErrorCode(answer.body);
  return `refused ${answer.status}${code === undefined ? "" : ` ${code}`}`;
}

function sendOutcome(profile: CompiledProfile, answer: Answer, original?: Placed): string {
  if (answer.status !== 200) return refusal(profile, answer);
  const order = profile.readOrder("order", answer.body);
  if (order.id === undefined) return "failed order without id";
  if (original === undefined) return "placed";
  return order.id === original.id ? "replayed same id" : "replayed new id";
}

export function lookupOutcome(profile: CompiledProfile, answer: Answer): string {
  if (answer.status === 200)
    return profile.readOrder("lookup", answer.body).id === undefined ? "found without id" : "found";
  return answer.status === 404
    ? `not found ${profile.readErrorCode(answer.body) ?? ""}`.trim()
    : refusal(profile, answer);
}

/** A found order's body differs by its status (a final one has more fields): shapes are compared status by status. */
function shapeKind(profile: CompiledProfile, outcome: string, answer: Answer): string {
  if (outcome !== "found") return outcome;
  const status = profile.readOrder("lookup", answer.body).status;
  return `found ${status === undefined ? "without status" : profile.statuses.nameOf(status)}`;
}

class RunState {
  readonly placed: Placed[] = [];
  constructor(
    readonly tag: string,
    private readonly onPlaced: (order: Placed) => void,
  ) {}
  place(order: Placed): void {
    this.placed.push(order);
    this.onPlaced(order);
  }
  pick(index: number): Placed | undefined {
    return this.placed.length === 0 ? undefined : this.placed[index % this.placed.length];
  }
}

/** An order's fields for step `index`: its recipient with the operator it belongs to (the interface requires `service`). */
function orderFields(options: Pick<ObserveOptions, "accounts">, index: number, amount: number) {
  const account = accountOf(options, index);
  const service = toRecipient(account)?.service;
  return { account, ...(service === undefined ? {} : { service }), amount, currency: "KES" };
}

function orderRequest(reference: string, key: string, body: Record<string, unknown>): Request {
  return { method: "POST", path: "/v1/airtime", token: true, key, body: { ...body, reference } };
}

/** One step: the request it makes and how its answer is classed. */
async function runStep(options: ObserveOptions, state: RunState, step: Step, index: number): Promise<StepRecord> {
  const { profile } = options;
  const fresh = `${state.tag}-${index}`;
  const record = async (
    request: Request,
    classify: (answer: Answer, sentAt: number) => string,
  ): Promise<StepRecord> => {
    const sentAt = Date.now();
    const answer = await call(options, request);
    const outcome = classify(answer, sentAt);
    return {
      kind: step.kind,
      outcome,
      curl: curlLine(options.baseUrl, request),
      shape: { of: shapeKind(profile, outcome, answer), lines: shapeOf(answer.body) },
    };
  };
  switch (step.kind) {
    case "send":
      return record(orderRequest(fresh, `k-${fresh}`, orderFields(options, index, step.amount)), (answer, sentAt) => {
        const order = answer.status === 200 ? profile.readOrder("order", answer.body) : undefined;
        const body = { ...orderFields(options, index, step.amount), reference: fresh };
        if (order?.id !== undefined) {
          state.place({
            reference: fresh,
            key: `k-${fresh}`,
            body,
            id: order.id,
            placedAt: (sentAt + Date.now()) / 2,
            status: order.status,
          });
        }
        return sendOutcome(profile, answer);
      });
    case "replay":
    case "replay-changed": {
      const original = state.pick(step.order);
      if (original === undefined) return { kind: step.kind, outcome: "skipped: nothing placed yet", curl: "" };
      const changed = step.kind === "replay-changed";
      const body = changed ? { ...original.body, amount: (original.body.amount as number) + 1 } : original.body;
      return record({ ...orderRequest(original.reference, original.key, body) }, (answer) =>
        changed && answer.status !== 200 ? refusal(profile, answer) : sendOutcome(profile, answer, original),
      );
    }
    case "lookup": {
      const original = state.pick(step.order);
      if (original === undefined) return { kind: step.kind, outcome: "skipped: nothing placed yet", curl: "" };
      return record({ method: "GET", path: `/v1/airtime/${original.reference}`, token: true }, (answer) =>
        lookupOutcome(profile, answer),
      );
    }
    case "lookup-unknown":
      return record({ method: "GET", path: `/v1/airtime/unknown-${fresh}`, token: true }, (answer) =>
        lookupOutcome(profile, answer),
      );
    case "balance":
      return record({ method: "GET", path: "/v1/balance", token: true }, (answer) =>
        answer.status === 200 && profile.readBalanceCents(answer.body) !== undefined
          ? "balance read"
          : refusal(profile, answer),
      );
    case "invalid-amount":
      return record(orderRequest(fresh, `k-${fresh}`, orderFields(options, index, -5)), (answer) =>
        sendOutcome(profile, answer),
      );
    case "no-token":
      return record({ method: "GET", path: "/v1/balance", token: false }, (answer) => refusal(profile, answer));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A final seen by polling, or undefined when the order was still pending at the deadline. */
type FinalSeen =
  { readonly reference: string; readonly status: number; readonly ms: number; readonly errorMs: number } | undefined;

/**
 * Polls one order from the moment it is placed until it is final, so the
 * measured time never includes the steps that came after it. The target
 * read the order about half way through each exchange, however slow the
 * exchange was; the final came between the last read that showed it pending
 * and the first that showed it final. The time is the middle of those two
 * reads, its error half the span between them: under load the polls run
 * late, and the span says by how much.
 */
async function watchOrder(options: ObserveOptions, order: Placed): Promise<FinalSeen> {
  const { profile } = options;
  const { reference } = order;
  if (order.status !== undefined && profile.statuses.isFinal(order.status))
    return { reference, status: order.status, ms: 0, errorMs: 0 };
  const deadline = order.placedAt + options.settleMs;
  const { pollMs } = options;
  let previousReadAt = order.placedAt;
  while (Date.now() < deadline) {
    await sleep(pollMs);
    const sentAt = Date.now();
    const answer = await call(options, { method: "GET", path: `/v1/airtime/${order.reference}`, token: true });
    const readAt = (sentAt + Date.now()) / 2;
    const status = answer.status === 200 ? profile.readOrder("lookup", answer.body).status : undefined;
    if (status !== undefined && profile.statuses.isFinal(status)) {
      const ms = Math.max(0, (previousReadAt + readAt) / 2 - order.placedAt);
      return { reference, status, ms, errorMs: (readAt - previousReadAt) / 2 };
    }
    previousReadAt = readAt;
  }
  return undefined;
}

/**
 * @example
 * await observeSide({ baseUrl, token, profile, runs: planRuns(...), settleMs: 10_000, pollMs: 20, accounts: [], requestTimeoutMs: 10_000 });
 */
export async function observeSide(options: ObserveOptions): Promise<SideObservations> {
  const steps: StepRecord[] = [];
  const watches: Promise<FinalSeen>[] = [];
  const side = randomUUID().slice(0, 8);
  for (const [runIndex, run] of options.runs.entries()) {
    const state = new RunState(`cmp-${side}-${runIndex}`, (order) => watches.push(watchOrder(options, order)));
    for (const [index, step] of run.entries())
      steps.push({ ...(await runStep(options, state, step, index)), run: runIndex });
    options.onProgress?.({ phase: "sent", run: runIndex + 1, runs: options.runs.length });
  }
  options.onProgress?.({ phase: "settling", orders: watches.length });
  const seen = await Promise.all(watches);
  const finals: Record<string, number> = {};
  const finalClasses: Record<string, number> = {};
  const finalTimesMs: number[] = [];
  const finalTimeErrorsMs: number[] = [];
  const finalTimesByStatus: Record<string, number[]> = {};
  for (const final of seen) {
    if (final === undefined) continue;
    const name = options.profile.statuses.nameOf(final.status);
    finals[name] = (finals[name] ?? 0) + 1;
    (finalTimesByStatus[name] ??= []).push(final.ms);
    const statusClass = options.profile.statuses.classOf(final.status) ?? "unknown";
    finalClasses[statusClass] = (finalClasses[statusClass] ?? 0) + 1;
    finalTimesMs.push(final.ms);
    finalTimeErrorsMs.push(final.errorMs);
  }
  const unsettled = seen.filter((final) => final === undefined).length;
  const { webhooks } = options;
  const lives = { finals, finalClasses, finalTimesMs, finalTimeErrorsMs, finalTimesByStatus, unsettled };
  if (webhooks === undefined) return { steps, ...lives };
  const orders = seen.filter((final) => final !== undefined);
  const observed = await collectWebhooks(webhooks.recorder, { ...webhooks, profile: options.profile, orders });
  return { steps, ...lives, webhooks: observed };
}
