/**
 * The last step of a contract run, pure: what each check saw becomes its
 * verdict — failed (recorded as it happened), skipped with the reason,
 * not exercised when it judged nothing, or passed with its coverage and a
 * note for each class of case it never met.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { CHECK_NAMES, CHECKS, type CheckName } from "./checks.ts";
import { describeCoverage } from "./coverage.ts";
import type { Strictness } from "./strictness.ts";
import type { PropertyName } from "./property.ts";
import type { CheckFailureReport, CheckVerdict } from "./report.ts";
import type { PlacementCounts } from "./placement-tally.ts";
import type { WebhookArrivals } from "./webhook-receiver.ts";

const WEBHOOK_SKIP_REASON =
  "webhook checks need --webhook-listen HOST:PORT (reachable by the target) and --webhook-secret";
const UNSIGNED_SKIP_REASON =
  "not judged under --profile interface: the provider profile names no webhook signing scheme (webhooks.signing)";
const ISOLATION_SKIP_REASON = "customer_isolation needs --other-token (a second customer's token)";

/** What the properties saw, summed over all of them. */
export interface CoverageAggregate {
  readonly exercised: Map<CheckName, Set<PropertyName>>;
  readonly assertions: Map<CheckName, number>;
  readonly tallies: Map<CheckName, Map<string, number>>;
  readonly failures: Map<CheckName, CheckFailureReport>;
  /** Rules a check could not provoke, with the reason and the way. */
  readonly notes: Map<CheckName, Set<string>>;
}

export function emptyAggregate(): CoverageAggregate {
  return { exercised: new Map(), assertions: new Map(), tallies: new Map(), failures: new Map(), notes: new Map() };
}

/** Why a check cannot be judged in this run at all, before any property runs. */
export function unavailableChecks(facts: {
  readonly profile: Strictness;
  readonly inProfile: ReadonlySet<CheckName>;
  readonly hasReceiver: boolean;
  readonly signingGiven: boolean;
  readonly hasOtherCustomer: boolean;
}): Map<CheckName, string> {
  const unavailable = new Map<CheckName, string>();
  for (const name of CHECK_NAMES) {
    if (!facts.inProfile.has(name)) {
      unavailable.set(
        name,
        `not judged under --profile ${facts.profile}: our spec decides it, the interface leaves it free`,
      );
    }
  }
  if (!facts.hasReceiver) {
    for (const name of ["webhook_delivered", "webhook_signature_valid", "webhook_matches_lookup"] as const) {
      unavailable.set(name, WEBHOOK_SKIP_REASON);
    }
  }
  if (facts.profile === "interface" && !facts.signingGiven)
    unavailable.set("webhook_signature_valid", UNSIGNED_SKIP_REASON);
  if (!facts.hasOtherCustomer) unavailable.set("customer_isolation", ISOLATION_SKIP_REASON);
  return unavailable;
}

export interface VerdictInput {
  readonly seen: CoverageAggregate;
  /** False when an error stopped the run before every property had run. */
  readonly finished: boolean;
  readonly selected: ReadonlySet<CheckName>;
  readonly unavailable: ReadonlyMap<CheckName, string>;
  readonly maxFailures: number;
  readonly propertiesChosen: boolean;
  readonly budgetRefusals: number;
  readonly provider: CompiledProfile;
  /** What reached the webhook receiver, when the run had one: names the real cause of an unjudged webhook check. */
  readonly webhooks: WebhookArrivals | undefined;
  /** How the target answered the model's valid orders: a run that placed none says so. */
  readonly placements?: PlacementCounts | undefined;
}

/** One verdict per check, in CHECK_NAMES order. */
export function decideVerdicts(input: VerdictInput): CheckVerdict[] {
  return CHECK_NAMES.map((name) => decideOne(name, input));
}

function decideOne(name: CheckName, input: VerdictInput): CheckVerdict {
  const description = CHECKS[name].description;
  const { seen } = input;
  const failure = seen.failures.get(name);
  if (failure !== undefined) return { name, description, status: "failed", failure };
  if (!input.finished) return { name, description, status: "skipped", reason: "the run stopped early" };
  if (!input.selected.has(name)) {
    return { name, description, status: "skipped", reason: "not selected (--checks / --exclude-checks)" };
  }
  const unavailable = input.unavailable.get(name);
  if (unavailable !== undefined) return { name, description, status: "skipped", reason: unavailable };
  const by = seen.exercised.get(name);
  if (by === undefined) {
    const failedCount = seen.failures.size;
    const { status, reason } = unexercisedReason(name, {
      stoppedAfterFailures: failedCount >= input.maxFailures ? failedCount : undefined,
      propertiesSelected: input.propertiesChosen,
      budgetRefusals: input.budgetRefusals,
      webhooks: input.webhooks,
      placements: input.placements,
    });
    return status === "skipped"
      ? { name, description, status, reason }
      : { name, description, status, reason, coverage: undefined };
  }
  const coverage = describeCoverage(
    name,
    seen.assertions.get(name) ?? 0,
    seen.tallies.get(name),
    input.provider.statuses.table,
  );
  const notes = [
    ...coverage.missing.map((statusClass) => `never met a ${statusClass}-class final status (${coverage.summary})`),
    ...(seen.notes.get(name) ?? []),
  ];
  return { name, description, status: "passed", properties: [...by], coverage, ...(notes.length > 0 ? { notes } : {}) };
}

/**
 * Honest reasons: why a selected check was never exercised. The budget is
 * named only when it refused requests and nothing more specific explains the
 * gap — a run whose webhooks never matched an order must say so, not blame
 * the budget.
 */

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
