/**
 * One generated run against the handler: the simulator realises the plan's
 * orders, the steps go out (copies and bursts at once), the app's belief is
 * read after every step, and the run stops at the first rule broken. The
 * timeline is what a report prints.
 */
import type { Believed, StateReader } from "./believed-state.ts";
import type { DeliveryDialect } from "./delivery-dialect.ts";
import type { HandlerAnswer, HandlerClient } from "./handler-client.ts";
import { createLedger, judgeConvergence, judgeStep, type SentDelivery, type Violation } from "./judge.ts";
import { buildSteps, type SequencePlan, type Step, type StepKind, withheldOrders } from "./sequence-model.ts";
import type { SimulatorTruth, TrueOrder } from "./simulator-truth.ts";

export interface TimelineEntry {
  readonly kind: StepKind | "reconcile";
  readonly deliveries: readonly SentDelivery[];
  /** The reconcile request's answer, for a `reconcile` entry. */
  readonly answer?: HandlerAnswer;
  /** What the app believed right after, for the orders the step touched. */
  readonly believed: readonly { readonly reference: string; readonly believed: Believed }[];
}

export interface RunOutcome {
  readonly orders: readonly TrueOrder[];
  readonly timeline: readonly TimelineEntry[];
  readonly violation?: Violation;
}

export interface SequenceContext {
  readonly truth: SimulatorTruth;
  readonly dialect: DeliveryDialect;
  readonly secret: string;
  readonly client: HandlerClient;
  readonly state: StateReader;
  /** Where to ask the handler to reconcile by lookup; withheld messages are generated only with it. */
  readonly reconcileUrl?: string | undefined;
  /** Wall-clock Unix seconds: receivers check the timestamp against their own clock. */
  readonly nowSeconds: () => number;
}

async function readAll(state: StateReader, references: readonly string[]): Promise<Map<string, Believed>> {
  const read = await Promise.all(
    references.map(async (reference) => [reference, await state.read(reference)] as const),
  );
  return new Map(read);
}

async function send(step: Step, context: SequenceContext): Promise<SentDelivery[]> {
  const at = context.nowSeconds();
  return Promise.all(
    step.deliveries.map(async ({ message, forgery }) => {
      const request =
        forgery === undefined
          ? context.dialect.sign(message, at, context.secret)
          : context.dialect.forge(message, forgery, at, context.secret);
      const answer = await context.client.deliver(request);
      return { message, ...(forgery === undefined ? {} : { forgery }), request, answer };
    }),
  );
}

function entryOf(kind: TimelineEntry["kind"], deliveries: SentDelivery[], believed: ReadonlyMap<string, Believed>) {
  return { kind, deliveries, believed: [...believed].map(([reference, value]) => ({ reference, believed: value })) };
}

/** Asks the handler to look up the orders it placed, when some final messages were withheld. */
async function reconcile(orders: readonly TrueOrder[], context: SequenceContext, timeline: TimelineEntry[]) {
  if (context.reconcileUrl === undefined) return;
  const references = orders.map((order) => order.reference);
  const answer = await context.client.post(context.reconcileUrl, { references });
  timeline.push({ ...entryOf("reconcile", [], await readAll(context.state, references)), answer });
}

/**
 * @example
 * const outcome = await runSequence(plan, context);
 * if (outcome.violation) console.log(outcome.violation.rule, outcome.timeline.length);
 */
export async function runSequence(plan: SequencePlan, context: SequenceContext): Promise<RunOutcome> {
  const orders = await context.truth.realise(plan.orders.map(({ order }) => order));
  const references = orders.map((order) => order.reference);
  const believed = await readAll(context.state, references);
  const ledger = createLedger();
  const timeline: TimelineEntry[] = [];
  for (const step of buildSteps(plan, orders)) {
    const touched = [...new Set(step.deliveries.map(({ message }) => message.reference))];
    const before = new Map(touched.map((reference) => [reference, believed.get(reference) as Believed]));
    const sent = await send(step, context);
    const after = await readAll(context.state, touched);
    for (const [reference, value] of after) believed.set(reference, value);
    timeline.push(entryOf(step.kind, sent, after));
    const violation = judgeStep(step.kind, sent, before, after, ledger);
    if (violation !== undefined) return { orders, timeline, violation };
  }
  if (withheldOrders(plan, orders).length > 0) await reconcile(orders, context, timeline);
  const violation = judgeConvergence(orders, await readAll(context.state, references));
  return { orders, timeline, ...(violation === undefined ? {} : { violation }) };
}
