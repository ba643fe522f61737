/**
 * The generated command stream of a model-based run. Which commands exist
 * depends only on the target's powers (admin, webhooks), never on the checks
 * selected, so `--checks X --seed S --path P` replays exactly the run that
 * failed. Commands pick their orders by position, so every one is valid.
 */
import fc from "fast-check";
import type { TransitionAction } from "../../contract/admin-schemas.ts";
import type { CompiledDomain } from "../../contract/provider-profile/compile.ts";
import { DEFAULT_ORDER_LIMITS } from "../../contract/public-schemas.ts";
import { optionalFaultArbitrary } from "../faults.ts";
import type { KeyLocation } from "../api.ts";
import type { HarnessModel, ServiceMode } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { AdvanceTimeCommand } from "./advance-time.ts";
import { AwaitWebhookCommand } from "./await-webhook.ts";
import { FORCED_ACTIONS, ForceOutcomeCommand } from "./force-outcome.ts";
import { LookupCommand } from "./lookup.ts";
import { orderShapeArbitrary } from "./order-inputs.ts";
import type { NewOrderSpec } from "./order-io.ts";
import { PlaceOrderCommand } from "./place-order.ts";
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
