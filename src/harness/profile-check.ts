/**
 * `profile check`: what each pointer and rule of a provider profile finds on
 * a live target, for people writing a profile. One order of the smallest
 * amount is placed, replayed, looked up until final; the balance is read; a
 * 409 is provoked with the same key and another amount; the order's webhook
 * is awaited (with a listen address). Every line says what was found where,
 * ✓ or ✗; any ✗ is a miss.
 */
import { randomBytes } from "node:crypto";
import type { CompiledProfile, OrderBodyKind } from "../contract/provider-profile/compile.ts";
import { toRecipient } from "./accounts.ts";
import { referenceInDomain } from "./commands/order-inputs.ts";
import { createHttpClient, type HttpOutcome } from "./http-client.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

export interface ProfileCheckOptions {
  readonly target: string;
  readonly token: string;
  readonly account: string;
  /** Where the receiver listens (HOST:PORT); no webhook is awaited without it. */
  readonly listen?: { readonly host: string; readonly port: number };
  readonly webhookSecret?: string;
  /** How long the order may take to become final, and then its webhook to arrive, ms. */
  readonly timeoutMs: number;
}

export interface CheckLine {
  readonly ok: boolean;
  readonly text: string;
}

const MISMATCH_CODE = "idempotency_payload_mismatch";

/**
 * @example
 * const lines = await checkProfile(compileProfile(profile), { target, token, account: "0712000101", timeoutMs: 10_000 });
 * process.exitCode = lines.every((line) => line.ok) ? 0 : 1;
 */
export async function checkProfile(provider: CompiledProfile, options: ProfileCheckOptions): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const note = (ok: boolean, text: string) => lines.push({ ok, text });
  const client = createHttpClient(options.target);
  const auth = { authorization: `Bearer ${options.token}`, accept: "application/json" };
  const receiver =
    options.listen === undefined || options.webhookSecret === undefined
      ? undefined
      : await startWebhookReceiver({ provider, secret: options.webhookSecret, ...options.listen });
  try {
    const recipient = toRecipient(options.account);
    const reference = referenceInDomain(provider.domain, `pc-${randomBytes(4).toString("hex")}`);
    const key = `pc-${randomBytes(12).toString("hex")}`;
    const amount = Math.max(provider.domain.minAmount, 1);
    const order = {
      account: options.account,
      amount,
      currency: provider.domain.currency,
      reference,
      ...(recipient === undefined ? {} : { service: recipient.service }),
    };
    const post = (body: object) =>
      client.send({
        method: "POST",
        path: "/v1/airtime",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
      });

    const placed = await post(order);
    if (!answered(placed, 200, `POST /v1/airtime (KES ${amount} to ${options.account})`, note)) return lines;
    const id = readFields(provider, "order", placed.json, note, reference);
    const replay = await post(order);
    if (answered(replay, 200, "the replay with the same key", note)) {
      const again = provider.readOrder("order", replay.json).id;
      note(
        again === id,
        `replay id at ${provider.pointer("order", "id")} → ${show(again)} ${again === id ? "= first answer ✓" : `≠ ${show(id)} ✗`}`,
      );
    }
    const final = await lookUpUntilFinal(provider, options, reference, auth, note);
    const balance = await client.send({ method: "GET", path: "/v1/balance", headers: auth });
    if (answered(balance, 200, "GET /v1/balance", note)) {
      const cents = provider.readBalanceCents(balance.json);
      const raw = provider.readField("balance", "amount", balance.json);
      note(
        cents !== undefined,
        `balance at ${provider.pointer("balance")} → ${show(raw)} ${mark(cents !== undefined)}`,
      );
    }
    const mismatch = await post({ ...order, amount: amount + 1 });
    if (mismatch.kind === "response") {
      const code = provider.readErrorCode(mismatch.json);
      const ok = mismatch.status === 409 && code === MISMATCH_CODE;
      note(
        ok,
        `same key, another amount: HTTP ${mismatch.status}, error code at ${provider.pointer("error")} → ${show(code)} ${mark(ok)}${ok ? "" : ` (expected 409 ${MISMATCH_CODE})`}`,
      );
    } else note(false, `same key, another amount: no answer (${mismatch.code})`);
    if (receiver !== undefined && final !== undefined) {
      const wait = await receiver.waitForFinal(reference, options.timeoutMs);
      if (wait.kind === "rejected") note(false, `webhook signature (${receiver.signing}) ✗ ${wait.rejection.reason}`);
      else if (wait.kind === "timeout") {
        note(
          false,
          `no webhook for ${reference} within ${options.timeoutMs} ms (event filter ${provider.resolved.event.pointer} in [${provider.resolved.event.values.join(", ")}], reference at ${provider.pointer("webhook", "reference")}) ✗: is the target set to post its webhooks to ${receiver.url}? (requests received: ${receiver.arrivals().requests})`,
        );
      } else {
        note(true, `webhook signature (${receiver.signing}) ✓`);
        note(true, `webhook delivery id → ${show(wait.delivery.webhookId)} ✓`);
        readFields(provider, "webhook", wait.delivery.payload, note, reference);
      }
    }
  } finally {
    await receiver?.close();
  }
  return lines;
}

function answered(
  outcome: HttpOutcome,
  status: number,
  what: string,
  note: (ok: boolean, text: string) => void,
): outcome is Extract<HttpOutcome, { kind: "response" }> {
  if (outcome.kind !== "response") {
    note(false, `${what}: no answer (${outcome.code}: ${outcome.message})`);
    return false;
  }
  const ok = outcome.status === status;
  note(ok, `${what}: HTTP ${outcome.status} ${mark(ok)}${ok ? "" : ` ${outcome.text.slice(0, 200)}`}`);
  return ok;
}

/** The id, reference and status of one body, each at its pointer; returns the id. */
function readFields(
  provider: CompiledProfile,
  kind: OrderBodyKind,
  body: unknown,
  note: (ok: boolean, text: string) => void,
  reference: string,
): string | undefined {
  const fields = provider.readOrder(kind, body);
  note(
    fields.id !== undefined,
    `${kind} id at ${provider.pointer(kind, "id")} → ${show(fields.id)} ${mark(fields.id !== undefined)}`,
  );
  const sameReference = fields.reference === reference;
  note(
    sameReference,
    `${kind} reference at ${provider.pointer(kind, "reference")} → ${show(fields.reference)} ${mark(sameReference)}`,
  );
  const status = fields.status;
  const statusText =
    status === undefined
      ? `${show(fields.statusValue)} ✗ (not in the status table)`
      : `${show(fields.statusValue)} = ${provider.statuses.nameOf(status)} (${provider.statuses.classOf(status) ?? "unknown class"}) ✓`;
  note(status !== undefined, `${kind} status at ${provider.pointer(kind, "status")} → ${statusText}`);
  return fields.id;
}

async function lookUpUntilFinal(
  provider: CompiledProfile,
  options: ProfileCheckOptions,
  reference: string,
  headers: Readonly<Record<string, string>>,
  note: (ok: boolean, text: string) => void,
): Promise<number | undefined> {
  const client = createHttpClient(options.target);
  const deadline = Date.now() + options.timeoutMs;
  let last: HttpOutcome | undefined;
  for (;;) {
    last = await client.send({ method: "GET", path: `/v1/airtime/${encodeURIComponent(reference)}`, headers });
    const status = last.kind === "response" ? provider.readOrder("lookup", last.json).status : undefined;
    if ((status !== undefined && provider.statuses.isFinal(status)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!answered(last, 200, `GET /v1/airtime/${reference}`, note)) return undefined;
  readFields(provider, "lookup", last.json, note, reference);
  const status = provider.readOrder("lookup", last.json).status;
  const final = status !== undefined && provider.statuses.isFinal(status);
  note(final, `final status within ${options.timeoutMs} ms ${mark(final)}`);
  return final ? status : undefined;
}

function show(value: unknown): string {
  return value === undefined ? "nothing" : JSON.stringify(value);
}

function mark(ok: boolean): string {
  return ok ? "✓" : "✗";
}
