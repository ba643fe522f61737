/**
 * Reuse an order's key with a different payload: the target must answer 409
 * idempotency_payload_mismatch and change nothing (the balance commands
 * that follow see any charge it made). When a fault loses the answer, the
 * request is sent once more without it, as a client would: the answer is the
 * same 409 either way, and a run whose every such retry drew a fault would
 * otherwise judge nothing.
 */
import type fc from "fast-check";
import { toCents } from "../../contract/money.ts";
import { SERVICES } from "../../contract/operators.ts";
import type { CompiledDomain } from "../../contract/provider-profile/compile.ts";
import { DEFAULT_ORDER_LIMITS, REFERENCE_MAX_LENGTH } from "../../contract/public-schemas.ts";
import type { Fault } from "../faults.ts";
import { committedOrders, type HarnessModel, keyed, type ModelOrder, type OrderPayload, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { domainOf, sendOrder } from "./order-io.ts";
import { faultText } from "./place-order.ts";

export const PAYLOAD_CHANGES = ["amount", "account", "reference", "service"] as const;
export type PayloadChange = (typeof PAYLOAD_CHANGES)[number];

export class RetryChangedPayloadCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly change: PayloadChange,
    readonly fault: Fault | undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    const order = pick(keyed(committedOrders(model)), this.orderIndex);
    return order !== undefined && model.config.budget.canSpend(order.amountCents + 100);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(keyed(committedOrders(model)), this.orderIndex);
    if (order === undefined) return;
    const { payload, what } = changePayload(model, order, this.change, domainOf(real));
    const resend =
      this.fault?.kind === "drop_response" || this.fault?.kind === "reset_before"
        ? ", then again without the fault"
        : "";
    this.label = `retry order #${order.slot} with the same key but ${what}${faultText(this.fault)}${resend}`;
    real.transcript.step(this.label);
    let result = await sendOrder(real, model, order, {
      payload,
      ...(this.fault === undefined ? {} : { fault: this.fault }),
    });
    if (result.kind !== "response" && model.config.budget.canSpend(toCents(payload.amount))) {
      // The same step: its second exchange is the resend, so a shrunk failure keeps its few steps.
      result = await sendOrder(real, model, order, { payload });
    }
    if (result.kind !== "response") return;
    const { response } = result;
    const code = real.provider.readErrorCode(response.json);
    real.checker.that(
      "payload_mismatch_rejected",
      response.status === 409 && code === "idempotency_payload_mismatch",
      () =>
        `${order.reference}: key ${order.key} reused with ${what}: expected 409 idempotency_payload_mismatch, got HTTP ${response.status} ${response.text.slice(0, 160)}`,
    );
  }

  toString(): string {
    return (
      this.label ??
      `retry order @${this.orderIndex} with the same key but a changed ${this.change}${faultText(this.fault)}`
    );
  }
}

function changePayload(
  model: HarnessModel,
  order: ModelOrder,
  change: PayloadChange,
  domain: CompiledDomain | undefined,
): { payload: OrderPayload; what: string } {
  const base = order.payload;
  const maxLength = domain?.referenceMaxLength ?? REFERENCE_MAX_LENGTH;
  const maxAmount = domain?.maxAmount ?? DEFAULT_ORDER_LIMITS.maxAmount;
  const services = domain?.services ?? SERVICES;
  switch (change) {
    case "account": {
      const other = model.config.recipients.find((recipient) => recipient.e164 !== order.recipient.e164);
      if (other === undefined) return changePayload(model, order, "amount", domain);
      const { service: _service, network: _network, ...rest } = base;
      return {
        payload: { ...rest, account: other.account, service: other.service },
        what: `account ${other.account}`,
      };
    }
    case "reference": {
      // Still a valid reference when the original is already at the longest allowed.
      const reference = `${base.reference.slice(0, maxLength - "-changed".length)}-changed`;
      return { payload: { ...base, reference }, what: `reference ${reference}` };
    }
    case "service": {
      const current = base.service ?? base.network ?? order.recipient.service;
      const other = services.find((service) => service !== current) ?? current;
      const { network: _network, ...rest } = base;
      return { payload: { ...rest, service: other }, what: `service ${other}` };
    }
    case "amount": {
      const up = base.amount + 1 <= maxAmount;
      const amount = Math.round((base.amount + (up ? 1 : -1)) * 100) / 100;
      return { payload: { ...base, amount }, what: `amount ${amount.toFixed(2)}` };
    }
    default:
      return assertNever(change);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected change ${String(value)}`);
}
