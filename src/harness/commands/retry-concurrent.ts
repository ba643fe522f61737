/**
 * Place a new order with several identical requests in parallel (a client
 * that retries before the first answer arrived): one order, one debit, the
 * same id in every answer.
 */
import type fc from "fast-check";
import type { HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, describeNewOrder, type NewOrderSpec, newOrder, sendOrder } from "./order-io.ts";

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
