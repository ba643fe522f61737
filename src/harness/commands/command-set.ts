/**
 * The generated command stream of a model-based run. Which commands exist
 * depends only on the target's powers (admin, webhooks), never on the checks
 * selected, so `--checks X --seed S --path P` replays exactly the run that
 * failed. Commands pick their orders by position, so every one is valid.
 * The stream's own commands (look up, let time pass, await a webhook, force
 * an outcome) follow it here. Placing an order (whose fault text the retries
 * share), reading the balance (which the audit shares) and the retries (one
 * family) have files of their own.
 */
import fc from "fast-check";
import type { TransitionAction } from "../../contract/admin-schemas.ts";
import type { CompiledDomain } from "../../contract/provider-profile/compile.ts";
import { DEFAULT_ORDER_LIMITS } from "../../contract/public-schemas.ts";
import {
  FAILED_STATUS,
  isAllowedTransition,
  REVERSED_STATUS,
  SUCCESS_STATUS,
  TIMEOUT_STATUS,
} from "../../contract/status-codes.ts";
import { settleOrders, sleep } from "../audit/settle.ts";
import { judgeFinalWebhook } from "../audit/webhook-judge.ts";
import { type Fault, optionalFaultArbitrary } from "../faults.ts";
import type { KeyLocation } from "../api.ts";
import {
  committedOrders,
  expectedStatus,
  type HarnessModel,
  isFinal,
  pick,
  type ServiceMode,
  statusName,
} from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { orderShapeArbitrary } from "./order-inputs.ts";
import { lookupOrder, type NewOrderSpec } from "./order-io.ts";
import { faultText, PlaceOrderCommand } from "./place-order.ts";
import { ReadBalanceCommand } from "./read-balance.ts";
import {
  ConcurrentRetriesCommand,
  KeylessPairCommand,
  PAYLOAD_CHANGES,
  RETRY_ACCOUNT_FORMS,
  RetryAfterLostResponseCommand,
  RetryChangedPayloadCommand,
  RetrySameCommand,
} from "./retry-commands.ts";

export interface CommandSetOptions {
  /** Admin powers: forced outcomes join the stream. */
  readonly admin: boolean;
  readonly webhooks: boolean;
  /** Largest "advance time" step, ms (about 1.5 × the lifecycle timing). */
  readonly maxAdvanceMs: number;
  /** Where "advance time" steps often land exactly: the lifecycle timing when known, else the largest step. */
  readonly landingMs: number;
  /** Largest order amount in cents (small under a budget). */
  readonly maxAmountCents: number;
  readonly maxCommands: number;
  /** fast-check's replay path of a failed run (from `--path`). */
  readonly replayPath?: string;
  /** The domain the provider profile states: every order is drawn inside it. */
  readonly domain?: CompiledDomain;
}

type HarnessCommand = fc.AsyncCommand<HarnessModel, RunContext>;

const indexArb = fc.nat({ max: 1000 });

/** Where a new order carries its key: header, body, or — for a plain placement — nowhere (§4.4: optional). */
const KEY_LOCATIONS: readonly KeyLocation[] = ["header", "body"];
const ANY_KEY_LOCATION: readonly KeyLocation[] = [...KEY_LOCATIONS, "none"];

function newOrderSpecArbitrary(
  maxAmountCents: number,
  domain: CompiledDomain | undefined,
  keyIn: readonly KeyLocation[],
): fc.Arbitrary<NewOrderSpec> {
  return fc.record({
    amountCents: amountCentsArbitrary(maxAmountCents, domain),
    recipientIndex: indexArb,
    // `network` and detection are our spec's; the interface documents `service` as required (§2.1).
    serviceMode:
      domain === undefined
        ? fc.constantFrom<ServiceMode>("explicit", "detect", "network")
        : fc.constant<ServiceMode>("explicit"),
    keyIn: fc.constantFrom(...keyIn),
    // A quarter of the orders name the shortcode wallet, where the run's customer has one.
    fromShortcode: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    shape: orderShapeArbitrary(domain),
  });
}

/** Amounts in cents within the limits (and, in a profile's domain, its decimals), capped by the budget. */
function amountCentsArbitrary(maxAmountCents: number, domain: CompiledDomain | undefined): fc.Arbitrary<number> {
  const minKes = domain?.minAmount ?? DEFAULT_ORDER_LIMITS.minAmount;
  const maxKes = domain?.maxAmount ?? DEFAULT_ORDER_LIMITS.maxAmount;
  const step = domain === undefined ? 1 : 10 ** (2 - domain.decimals);
  const min = Math.ceil(Math.round(minKes * 100) / step);
  const max = Math.max(min, Math.floor(Math.min(maxAmountCents, Math.round(maxKes * 100)) / step));
  return step === 1 ? fc.integer({ min, max }) : fc.integer({ min, max }).map((units) => units * step);
}

/**
 * A command that checks its precondition again as it starts. fast-check
 * awaits `check()` before `run()`, and model runs in other lanes spend the
 * one budget in between; checked again here, in the same tick as the
 * command's first reservation, a command the budget no longer covers is
 * left out instead of failing its run with a budget error.
 */
class RecheckedCommand implements HarnessCommand {
  constructor(private readonly command: HarnessCommand) {}

  check(model: Readonly<HarnessModel>): boolean {
    return this.command.check(model);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    if (this.command.check(model)) await this.command.run(model, real);
  }

  toString(): string {
    return this.command.toString();
  }
}

export function commandsArbitrary(options: CommandSetOptions): fc.Arbitrary<Iterable<HarnessCommand>> {
  // Retries after a lost answer or in parallel are what a key is for: those orders always carry one.
  const spec = newOrderSpecArbitrary(options.maxAmountCents, options.domain, KEY_LOCATIONS);
  const anySpec = newOrderSpecArbitrary(options.maxAmountCents, options.domain, ANY_KEY_LOCATION);
  // Weighted towards what finds protocol defects: orders, their retries and
  // repeated observations (lookups, balances) across time.
  const weighted: { weight: number; arbitrary: fc.Arbitrary<HarnessCommand> }[] = [
    {
      weight: 3,
      arbitrary: fc.tuple(anySpec, optionalFaultArbitrary).map(([s, fault]) => new PlaceOrderCommand(s, fault)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(indexArb, optionalFaultArbitrary, fc.option(fc.constantFrom(...RETRY_ACCOUNT_FORMS), { nil: undefined }))
        .map(([i, fault, form]) => new RetrySameCommand(i, fault, form)),
    },
    // A keyless order right after another: a keyless order must bind no key the next one would collide with.
    { weight: 1, arbitrary: fc.tuple(spec, spec).map(([first, second]) => new KeylessPairCommand(first, second)) },
    { weight: 1, arbitrary: spec.map((s) => new RetryAfterLostResponseCommand(s)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(spec, fc.integer({ min: 2, max: 4 }))
        .map(([s, copies]) => new ConcurrentRetriesCommand(s, copies)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(indexArb, fc.constantFrom(...PAYLOAD_CHANGES), optionalFaultArbitrary)
        .map(([i, change, fault]) => new RetryChangedPayloadCommand(i, change, fault)),
    },
    {
      weight: 4,
      arbitrary: fc.tuple(indexArb, optionalFaultArbitrary).map(([i, fault]) => new LookupCommand(i, fault)),
    },
    { weight: 2, arbitrary: optionalFaultArbitrary.map((fault) => new ReadBalanceCommand(fault)) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.integer({ min: 1, max: Math.max(1, options.maxAdvanceMs) }),
          fc.constant(Math.max(1, options.landingMs)),
        )
        .map((ms) => new AdvanceTimeCommand(ms)),
    },
  ];
  if (options.admin) {
    weighted.push({
      weight: 1,
      arbitrary: fc
        .tuple(indexArb, fc.constantFrom<TransitionAction>(...FORCED_ACTIONS))
        .map(([i, action]) => new ForceOutcomeCommand(i, action)),
    });
  }
  if (options.webhooks) weighted.push({ weight: 1, arbitrary: indexArb.map((i) => new AwaitWebhookCommand(i)) });
  return fc.commands([fc.oneof(...weighted).map((command) => new RecheckedCommand(command))], {
    maxCommands: options.maxCommands,
    // Lengths spread over the whole range up to maxCommands, not only short runs.
    size: "max",
    ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath }),
  });
}

/** Look an order up by its reference (GET /v1/airtime/{reference}). */
class LookupCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly fault: Fault | undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.orders.length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(model.orders, this.orderIndex);
    if (order === undefined) return;
    this.label = `look up order #${order.slot} by reference ${order.reference}${faultText(this.fault)}`;
    real.transcript.step(this.label);
    await lookupOrder(model, real, order, this.fault);
  }

  toString(): string {
    return this.label ?? `look up order @${this.orderIndex}${faultText(this.fault)}`;
  }
}

/**
 * Let time pass: advance the target's virtual clock; against a real clock,
 * watch the open orders (parallel lookups) until one changes status or the
 * (capped) time is up — never a blind sleep, and no wait at all when no order
 * is open, since then there is nothing to observe.
 */

const FIRST_POLL_MS = 20;

class AdvanceTimeCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  constructor(readonly ms: number) {}

  check(): boolean {
    return true;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    real.transcript.step(this.describe(real.clock.mode));
    if (real.clock.mode === "virtual") {
      model.elapsedMs += await real.clock.advance(this.ms);
      return;
    }
    const cap = Math.min(this.ms, real.timeouts.maxWaitMs);
    model.elapsedMs += await real.timings.time("steps: watch open orders", () => observeOpenOrders(model, real, cap));
  }

  private describe(mode: "virtual" | "real"): string {
    return mode === "virtual"
      ? `advance the clock by ${this.ms} ms`
      : `watch the open orders for up to ${this.ms} ms (capped) until one changes`;
  }

  toString(): string {
    return `advance time by ${this.ms} ms`;
  }
}

/** Polls the open orders until any status changes or `capMs` passed; resolves to the ms that passed. */
async function observeOpenOrders(model: HarnessModel, real: RunContext, capMs: number): Promise<number> {
  const open = committedOrders(model).filter((o) => o.lastStatus === undefined || !isFinal(model, o.lastStatus));
  if (open.length === 0) return 0;
  const started = Date.now();
  const before = open.map((o) => o.lastStatus);
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(real.timeouts.pollMs, Math.ceil(wait * 1.5))) {
    const left = capMs - (Date.now() - started);
    if (left <= 0) break;
    await sleep(Math.min(wait, left));
    await Promise.all(open.map((order) => lookupOrder(model, real, order)));
    if (open.some((order, i) => order.lastStatus !== before[i])) break;
  }
  return Date.now() - started;
}

/**
 * Await an order's final webhook mid-run: make the order final (advance the
 * virtual clock, or poll against a real one), read its status, then wait for
 * the webhook and hold it against the lookup. The end-of-run audit does the
 * same for every order; this step judges one earlier, between other steps.
 */
class AwaitWebhookCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(readonly orderIndex: number) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.config.webhooks && committedOrders(model).length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(committedOrders(model), this.orderIndex);
    if (order === undefined || real.receiver === undefined) return;
    this.label = `await the final webhook of order #${order.slot} (${order.reference})`;
    real.transcript.step(this.label);
    const final = (await settleOrders(model, real, [order])).get(order);
    if (final === undefined) return; // never final within --final-timeout: nothing to expect yet
    // On a virtual clock a due webhook attempt runs only when the clock moves; advancing by 0 runs it.
    if (real.clock.mode === "virtual") await real.clock.advance(0);
    await judgeFinalWebhook(real, order.reference, final, statusName(model, final.status));
  }

  toString(): string {
    return this.label ?? `await the final webhook of order @${this.orderIndex}`;
  }
}

/**
 * Force an order's outcome through the admin API (simulator powers only):
 * failures and reversals must refund, and a final status must stay final.
 */

const FORCED_ACTIONS: readonly TransitionAction[] = ["succeed", "fail", "timeout", "reverse"];

const STATUS_OF: Readonly<Record<TransitionAction, number>> = {
  succeed: SUCCESS_STATUS,
  fail: FAILED_STATUS,
  timeout: TIMEOUT_STATUS,
  reverse: REVERSED_STATUS,
};

class ForceOutcomeCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly action: TransitionAction,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.config.admin && committedOrders(model).length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(committedOrders(model), this.orderIndex);
    if (order === undefined || order.id === undefined || real.target.admin === undefined) return;
    const target = STATUS_OF[this.action];
    // Predicted when the model can know it; otherwise the target's own current status, never a stale observation.
    const current = expectedStatus(model, order) ?? (await currentStatus(real, order.reference));
    const allowed = current !== undefined && isAllowedTransition(model.config.statusTable, current, target);
    this.label = `force order #${order.slot} to ${this.action} (${target}) via the admin API${allowed ? "" : ` — not allowed from ${current}, skipped`}`;
    real.transcript.step(this.label);
    if (!allowed) return;
    const result = await real.target.admin.transition(order.id, this.action);
    // On a real clock the order may have become final in between: the simulator refuses, nothing changed.
    if (result.kind === "transitioned") order.forcedStatus = target;
  }

  toString(): string {
    return this.label ?? `force order @${this.orderIndex} to ${this.action}`;
  }
}

async function currentStatus(real: RunContext, reference: string): Promise<number | undefined> {
  const orders = await real.target.admin?.listOrders({
    reference,
    ...(real.customerId === undefined ? {} : { customer: real.customerId }),
  });
  return orders?.[0]?.status;
}
