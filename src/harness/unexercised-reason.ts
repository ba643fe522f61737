/**
 * Honest reasons: why a selected check was never exercised. The budget is
 * named only when it refused requests and nothing more specific explains the
 * gap — a run whose webhooks never matched an order must say so, not blame
 * the budget.
 */
import type { CheckName } from "./checks.ts";
import type { PlacementCounts } from "./placement-tally.ts";
import type { WebhookArrivals } from "./webhook-receiver.ts";

/** Checks that can only be judged on a webhook the harness tied to one of its orders. */
const WEBHOOK_CHECKS: ReadonlySet<CheckName> = new Set([
  "webhook_delivered",
  "webhook_signature_valid",
  "webhook_matches_lookup",
]);

/** What the run knows when it gives a check its verdict. */
export interface UnexercisedFacts {
  /** The run stopped early after this many failed checks (--max-failures), or undefined. */
  readonly stoppedAfterFailures: number | undefined;
  /** Only some properties ran (--properties). */
  readonly propertiesSelected: boolean;
  /** Requests the budget refused. */
  readonly budgetRefusals: number;
  /** What reached the webhook receiver, when the run had one. */
  readonly webhooks: WebhookArrivals | undefined;
  /** How the target answered the model's valid orders, when the model ran. */
  readonly placements?: PlacementCounts | undefined;
}

/**
 * A reason for a check no property exercised: `skipped` when the run itself
 * left no room (stopped early, not selected, budget), `not_exercised` when the
 * target never produced a case of it.
 *
 * @example
 * unexercisedReason("webhook_matches_lookup", { stoppedAfterFailures: undefined, propertiesSelected: false,
 *   budgetRefusals: 3, webhooks: { requests: 9, rejected: 0, statusEvents: 9, correlated: 0 } });
 * // → { status: "not_exercised", reason: "no webhook correlated: 9 order-status events arrived, none … " }
 */
export function unexercisedReason(
  check: CheckName,
  facts: UnexercisedFacts,
): { readonly status: "skipped" | "not_exercised"; readonly reason: string } {
  if (facts.stoppedAfterFailures !== undefined)
    return {
      status: "skipped",
      reason: `not reached: the run stopped after ${facts.stoppedAfterFailures} failed check(s) (--max-failures)`,
    };
  if (facts.propertiesSelected) return { status: "skipped", reason: "not exercised by the selected properties" };
  const refusedAll = facts.placements !== undefined && facts.placements.sent > 0 && facts.placements.placed === 0;
  if (refusedAll) return { status: "not_exercised", reason: everyOrderRefused(facts.placements) };
  const webhookReason = WEBHOOK_CHECKS.has(check) ? webhookGap(facts.webhooks) : undefined;
  if (webhookReason !== undefined) return { status: "not_exercised", reason: webhookReason };
  if (facts.budgetRefusals > 0)
    return {
      status: "skipped",
      reason: `not exercised: the budget refused ${facts.budgetRefusals} request(s) it needs`,
    };
  return { status: "not_exercised", reason: "no case of it came up in this run" };
}

/** Why no webhook could be judged, from what reached the receiver; undefined when webhooks were correlated. */
function webhookGap(arrivals: WebhookArrivals | undefined): string | undefined {
  if (arrivals === undefined) return undefined;
  if (arrivals.requests === 0) return "no webhook arrived at the receiver";
  if (arrivals.statusEvents === 0) {
    if (arrivals.rejected > 0) return `no webhook verified: all ${arrivals.rejected} failed signature verification`;
    // A profile that states no event filter filtered nothing: what its deliveries lacked is a reference.
    return arrivals.eventFilter === undefined
      ? `no webhook correlated: ${arrivals.requests} request(s) arrived, none carried a reference at the profile's pointer (the profile states no event filter)`
      : `no order-status event: ${arrivals.requests} request(s) arrived, none matched the profile's event filter (${arrivals.eventFilter})`;
  }
  if (arrivals.correlated === 0)
    return `no webhook correlated: ${arrivals.statusEvents} order-status event(s) arrived, none carried a reference at the profile's pointer`;
  return undefined;
}

function everyOrderRefused(counts: PlacementCounts): string {
  return `no order was placed: the target refused all ${counts.sent} valid order(s) the harness sent (the last with ${counts.lastRefusal}); if they fall outside the provider's domain, state it in the profile's \`domain\` or give --spec`;
}
