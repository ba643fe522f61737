/**
 * The retry commands: what a client does again with an order, with and
 * without an idempotency key — the same request after a timeout, after a
 * lost answer, several at once, with a changed payload, and keyless orders
 * one after another, each of which must stay an order of its own.
 */
import type fc from "fast-check";
import { toCents } from "../../contract/money.ts";
import { SERVICES } from "../../contract/operators.ts";
import type { CompiledDomain } from "../../contract/provider-profile/compile.ts";
import { DEFAULT_ORDER_LIMITS, REFERENCE_MAX_LENGTH } from "../../contract/public-schemas.ts";
import { writeAccount } from "../accounts.ts";
import { HarnessError } from "../checker.ts";
import type { Fault } from "../faults.ts";
import { committedOrders, type HarnessModel, keyed, type ModelOrder, type OrderPayload, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, describeNewOrder, domainOf, type NewOrderSpec, newOrder, sendOrder } from "./order-io.ts";
import { faultText } from "./place-order.ts";

/**
 * Retry a keyed order with the same key and the same payload (what a client
 * does after a timeout). Under our spec the account may be written another
 * way (0712…, 254712…, +254712…): the same number, so the same payload.
 */

/** The writings of a Kenyan mobile number our spec treats as one account. */
export const RETRY_ACCOUNT_FORMS = ["local", "international", "e164"] as const;
export type RetryAccountForm = (typeof RETRY_ACCOUNT_FORMS)[number];

/**
 * The account written in `form`, or, when that is how it was placed, in the
 * next form that writes it otherwise: a drawn form is always a new writing.
 */
function anotherWriting(account: string, form: RetryAccountForm): string {
  const start = RETRY_ACCOUNT_FORMS.indexOf(form);
  for (let step = 0; step < RETRY_ACCOUNT_FORMS.length; step++) {
    const written = writeAccount(account, RETRY_ACCOUNT_FORMS[(start + step) % RETRY_ACCOUNT_FORMS.length]!);
    if (written !== account) return written;
  }
  return account;
}

export class RetrySameCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly fault: Fault | undefined,
    /** The form the account is written in, under our spec; as placed when undefined. */
    readonly accountForm: RetryAccountForm | undefined = undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    const order = pick(keyed(model.orders), this.orderIndex);
    return order !== undefined && model.config.budget.canSpend(order.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(keyed(model.orders), this.orderIndex);
    if (order === undefined) return;
    // The interface states no account formats: only our spec makes another writing the same payload.
    const form = real.profile === "strict" ? this.accountForm : undefined;
    const account = form === undefined ? order.payload.account : anotherWriting(order.payload.account, form);
    const written = account === order.payload.account ? "" : ` (the account written as ${account})`;
    this.label = `retry order #${order.slot} with the same key and payload${written}${faultText(this.fault)}`;
    real.transcript.step(this.label);
    const result = await sendOrder(real, model, order, {
      ...(this.fault === undefined ? {} : { fault: this.fault }),
      ...(written === "" ? {} : { payload: { ...order.payload, account } }),
    });
    absorbOrderResult(model, real, order, result);
  }

  toString(): string {
    return this.label ?? `retry order @${this.orderIndex} with the same key and payload${faultText(this.fault)}`;
  }
}

/**
 * The case idempotency keys exist for: place a new order, lose the response
 * after the target committed it, then retry with the same key. The retry must
 * answer the id the target committed, and nothing may be charged twice.
 */
export class RetryAfterLostResponseCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(readonly spec: NewOrderSpec) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.orders.length < model.config.maxOrders && model.config.budget.canSpend(2 * this.spec.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = newOrder(model, real, this.spec);
    this.label = `place order #${order.slot} (${order.reference}), lose the response, retry with the same key: ${describeNewOrder(this.spec, model)}`;
    real.transcript.step(this.label);
    // The retry's amount is reserved with the first: other lanes spend the budget while this one waits.
    if (!model.config.budget.reserve(order.amountCents)) throw new HarnessError("budget exhausted before the retry");
    const lost = await sendOrder(real, model, order, { fault: { kind: "drop_response" } });
    if (lost.kind !== "lost") throw new HarnessError("the fault proxy did not drop the response");
    absorbOrderResult(model, real, order, lost);
    absorbOrderResult(model, real, order, await sendOrder(real, model, order, { reserved: true }));
  }

  toString(): string {
    return this.label ?? `place, lose the response, retry: ${describeNewOrder(this.spec, undefined)}`;
  }
}

/**
 * Place a new order with several identical requests in parallel (a client
 * that retries before the first answer arrived): one order, one debit, the
 * same id in every answer.
 */
export class ConcurrentRetriesCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly spec: NewOrderSpec,
    readonly copies: number,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return (
      model.orders.length < model.config.maxOrders && model.config.budget.canSpend(this.copies * this.spec.amountCents)
    );
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = newOrder(model, real, this.spec);
    this.label = `place order #${order.slot} (${order.reference}) with ${this.copies} identical requests in parallel: ${describeNewOrder(this.spec, model)}`;
    real.transcript.step(this.label);
    // All leave before any answer is seen: the target may serve them in any order, a later answer
    // carrying an earlier status than one judged before it, so each is judged against this alone.
    const whenSent = { lastStatus: order.lastStatus };
    const requests: ReturnType<typeof sendOrder>[] = [];
    for (let i = 0; i < this.copies; i++) requests.push(sendOrder(real, model, order));
    // Every request finishes before any is judged, so none outlives this step.
    const settled = await Promise.allSettled(requests);
    // Judged in request order: the first 200 commits the order, every other must repeat its id.
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      absorbOrderResult(model, real, order, result.value, { concurrent: true, whenSent });
    }
    // Idempotent-Replayed is our spec's header, not the interface's (§4.4 shows none): judged only under strict.
    if (real.profile !== "strict") return;
    // Exactly one of the accepted answers is the first; every other says Idempotent-Replayed: true.
    const accepted = settled.flatMap((s) =>
      s.status === "fulfilled" && s.value.kind === "response" && s.value.response.status === 200 ? [s.value] : [],
    );
    const firsts = accepted.filter((a) => a.response.headers["idempotent-replayed"]?.trim().toLowerCase() !== "true");
    // The first may be one that went unanswered: then every answer that came is a replay.
    const unanswered = settled.some((s) => s.status === "fulfilled" && s.value.kind === "unanswered");
    real.checker.that(
      "idempotent_replay",
      accepted.length === 0 || firsts.length === 1 || (unanswered && firsts.length === 0),
      () =>
        `${order.reference}: of ${accepted.length} parallel identical requests answered 200, ${firsts.length} came without Idempotent-Replayed: true (exactly one is the first answer)`,
    );
  }

  toString(): string {
    return (
      this.label ?? `place with ${this.copies} parallel identical requests: ${describeNewOrder(this.spec, undefined)}`
    );
  }
}

/**
 * Reuse an order's key with a different payload: the target must answer 409
 * idempotency_payload_mismatch and change nothing (the balance commands
 * that follow see any charge it made). When a fault loses the answer, the
 * request is sent once more without it, as a client would: the answer is the
 * same 409 either way, and a run whose every such retry drew a fault would
 * otherwise judge nothing.
 */

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

/**
 * Two keyless orders for the run's customer, one right after the other. The
 * key is optional (§2.1, §4.4): a keyless order binds nothing, so the second
 * is a new order like the first, and a target that refuses it (409, or any
 * answer a valid new order must not get) fails the status code checks. Drawn
 * on its own because two keyless placements in one run are otherwise rare.
 */
export class KeylessPairCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;
  private readonly specs: readonly [NewOrderSpec, NewOrderSpec];

  constructor(first: NewOrderSpec, second: NewOrderSpec) {
    this.specs = [
      { ...first, keyIn: "none" },
      { ...second, keyIn: "none" },
    ];
  }

  check(model: Readonly<HarnessModel>): boolean {
    const [first, second] = this.specs;
    return (
      model.orders.length + 2 <= model.config.maxOrders &&
      model.config.budget.canSpend(first.amountCents + second.amountCents)
    );
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const steps: string[] = [];
    for (const spec of this.specs) {
      const order = newOrder(model, real, spec);
      const step = `place keyless order #${order.slot} (${order.reference}): ${describeNewOrder(spec, model)}`;
      steps.push(step);
      real.transcript.step(step);
      absorbOrderResult(model, real, order, await sendOrder(real, model, order));
    }
    this.label = steps.join("; then ");
  }

  toString(): string {
    return (
      this.label ?? `place two keyless orders: ${this.specs.map((s) => describeNewOrder(s, undefined)).join("; ")}`
    );
  }
}
