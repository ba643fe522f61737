/**
 * Await an order's final webhook: make the order final (advance the virtual
 * clock, or poll against a real one), read its status, then wait for the
 * webhook and hold it against the lookup.
 */
import type fc from "fast-check";
import { toCents } from "../../contract/money.ts";
import type { TransactionStatusResponse } from "../../contract/public-schemas.ts";
import { WebhookPayloadSchema } from "../../contract/webhook-schemas.ts";
import { committedOrders, expectedStatus, type HarnessModel, isFinal, type ModelOrder, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { lookupOrder } from "./order-io.ts";

export class AwaitWebhookCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(readonly orderIndex: number) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.config.webhooks && committedOrders(model).length > 0;
  }

  async run(model: HarnessModel, r: RunContext): Promise<void> {
    const order = pick(committedOrders(model), this.orderIndex);
    if (order === undefined || r.receiver === undefined) return;
    this.label = `await the final webhook of order #${order.slot} (${order.reference})`;
    r.transcript.step(this.label);
    const final = await untilFinal(model, r, order);
    if (final === undefined) return; // never final within --final-timeout: nothing to expect yet
    // On a virtual clock a due webhook attempt runs only when the clock moves; advancing by 0 runs it.
    if (r.clock.mode === "virtual") await r.clock.advance(0);

    const receiver = r.receiver;
    let wait = await receiver.waitForFinal(order.reference, r.timeouts.webhookMs);
    if (wait.kind === "rejected") {
      r.checker.that(
        "webhook_signature_valid",
        false,
        `${order.reference}: a webhook failed Standard Webhooks verification (${wait.rejection.reason}); headers ${JSON.stringify(pickSignatureHeaders(wait.rejection.headers))}`,
      );
      return;
    }
    r.checker.that(
      "webhook_delivered",
      wait.kind === "delivered",
      () => `${order.reference}: final status ${final.status} but no webhook within ${r.timeouts.webhookMs} ms`,
    );
    if (wait.kind !== "delivered") return;
    r.checker.touch("webhook_signature_valid");
    if (statusOf(wait.delivery.payload) !== final.status) {
      // A reversal sends a second final webhook; give a later one a moment to arrive.
      const later = await receiver.waitForFinal(
        order.reference,
        Math.min(1000, Math.ceil(r.timeouts.webhookMs / 4)),
        (delivery) => statusOf(delivery.payload) === final.status,
      );
      if (later.kind === "delivered") wait = later;
    }
    const parsed = WebhookPayloadSchema.safeParse(wait.delivery.payload);
    r.checker.that(
      "webhook_matches_lookup",
      parsed.success,
      () =>
        `${order.reference}: the webhook body does not match the webhook schema: ${wait.kind === "delivered" ? wait.delivery.body.slice(0, 200) : ""}`,
    );
    if (!parsed.success) return;
    const webhook = parsed.data;
    const mismatches = [
      webhook.id === final.id ? undefined : `id ${webhook.id} ≠ ${final.id}`,
      webhook.reference === final.reference ? undefined : `reference ${webhook.reference}`,
      webhook.status === final.status ? undefined : `status ${webhook.status} ≠ ${final.status}`,
      toCents(webhook.amount) === toCents(final.amount) ? undefined : `amount ${webhook.amount} ≠ ${final.amount}`,
    ].filter((m): m is string => m !== undefined);
    r.checker.that(
      "webhook_matches_lookup",
      mismatches.length === 0,
      () =>
        `${order.reference}: the webhook disagrees with GET /v1/airtime/${order.reference}: ${mismatches.join(", ")}`,
    );
  }

  toString(): string {
    return this.label ?? `await the final webhook of order @${this.orderIndex}`;
  }
}

/** Brings the order to a final status and returns the lookup that shows it (undefined: still pending at the deadline). */
async function untilFinal(
  model: HarnessModel,
  r: RunContext,
  order: ModelOrder,
): Promise<TransactionStatusResponse | undefined> {
  const predicted = expectedStatus(model, order);
  if (predicted !== undefined && !isFinal(model, predicted)) {
    const timing = model.config.timingMs ?? 0;
    const remaining = Math.max(0, timing - (model.elapsedMs - (order.placedAtMs ?? model.elapsedMs)));
    model.elapsedMs += await r.clock.advance(remaining);
  }
  // A virtual clock is advanced in ten steps up to --final-timeout; a real one is polled until then.
  const deadline = Date.now() + r.timeouts.finalMs;
  for (let attempt = 0; ; attempt++) {
    const lookup = await lookupOrder(model, r, order);
    if (lookup.kind === "found" && isFinal(model, lookup.body.status)) return lookup.body;
    if (predicted !== undefined) return undefined;
    if (r.clock.mode === "virtual") {
      if (attempt >= 10) return undefined;
      model.elapsedMs += await r.clock.advance(Math.max(1000, Math.ceil(r.timeouts.finalMs / 10)));
    } else {
      if (Date.now() >= deadline) return undefined;
      model.elapsedMs += await r.clock.advance(r.timeouts.pollMs);
    }
  }
}

function statusOf(payload: unknown): unknown {
  return typeof payload === "object" && payload !== null ? (payload as { status?: unknown }).status : undefined;
}

function pickSignatureHeaders(headers: Readonly<Record<string, string>>): Record<string, string | undefined> {
  return {
    "webhook-id": headers["webhook-id"],
    "webhook-timestamp": headers["webhook-timestamp"],
    "webhook-signature": headers["webhook-signature"],
  };
}
