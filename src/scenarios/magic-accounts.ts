/**
 * Magic test accounts, like a card processor's test card numbers: a fixed
 * Kenyan number for each outcome and fault, on unless disabled
 * (`magicAccounts: false`). The table below is the only place they are
 * defined: the built-in `magic-accounts` scenario and the docs table are
 * generated from it.
 */
import type { Service } from "../contract/operators.ts";
import { type LoadedScenario, validateScenario } from "./load.ts";
import type { RuleEffectsInput, RuleMatchInput, ScenarioFileInput } from "./schema.ts";

export interface MagicAccount {
  /** E.164. */
  readonly account: string;
  readonly service: Service;
  /** Rule name, as listed in `fired` and the journal (`magic-accounts/<name>`). */
  readonly name: string;
  /** What the integrator sees, for the docs table. */
  readonly behaviour: string;
  readonly match?: Pick<RuleMatchInput, "attempt" | "firstN">;
  readonly effects: RuleEffectsInput;
}

export const MAGIC_ACCOUNTS_SCENARIO_NAME = "magic-accounts";

/** Delay of the reversal after the success on the "reversed" number. */
const MAGIC_REVERSAL_DELAY = "10s";
/** Latency of the "slow" number's HTTP response. */
const MAGIC_SLOW_LATENCY = "3s";

export const MAGIC_ACCOUNTS: readonly MagicAccount[] = [
  {
    account: "+254700000000",
    service: "safaricom",
    name: "success",
    behaviour: "Succeeds (20) after the default delay",
    effects: { outcome: { status: 20 } },
  },
  {
    account: "+254700000001",
    service: "safaricom",
    name: "failed",
    behaviour: "Fails (2) after the default delay; the wallet is refunded",
    effects: { outcome: { status: 2 } },
  },
  {
    account: "+254700000002",
    service: "safaricom",
    name: "timeout",
    behaviour: "Times out (6) after the default delay; the wallet is refunded",
    effects: { outcome: { status: 6 } },
  },
  {
    account: "+254700000003",
    service: "safaricom",
    name: "stuck-pending",
    behaviour: "Stays pending (0) until forced through the admin API",
    effects: { stuckPending: true },
  },
  {
    account: "+254700000004",
    service: "safaricom",
    name: "reversed",
    behaviour: `Succeeds (20), then is reversed (8) ${MAGIC_REVERSAL_DELAY} later; the wallet is refunded`,
    effects: { reverseAfter: MAGIC_REVERSAL_DELAY },
  },
  {
    account: "+254700000005",
    service: "safaricom",
    name: "slow",
    behaviour: `The HTTP response takes ${MAGIC_SLOW_LATENCY}; then succeeds as usual`,
    effects: { latency: MAGIC_SLOW_LATENCY, outcome: { status: 20 } },
  },
  {
    account: "+254700000006",
    service: "safaricom",
    name: "intermediate-path",
    behaviour: "Goes 0 → 3 Submitted (0.5 s) → 31 Processing (1 s) → 20 Success (1 s)",
    effects: {
      path: [
        { status: 3, after: "500ms" },
        { status: 31, after: "1s" },
        { status: 20, after: "1s" },
      ],
    },
  },
  {
    account: "+254700000007",
    service: "safaricom",
    name: "lost-response",
    behaviour: "First attempt: the order is created, then the connection drops; a retry with the same key gets it",
    match: { attempt: 1 },
    effects: { dropResponse: { when: "after_commit" }, outcome: { status: 20 } },
  },
  {
    account: "+254700000008",
    service: "safaricom",
    name: "503-twice",
    behaviour: "503 on the first two attempts (nothing created); the third is placed as usual",
    match: { firstN: 2 },
    effects: { httpError: { status: 503, when: "before_commit" } },
  },
  {
    account: "+254700000009",
    service: "safaricom",
    name: "rate-limited",
    behaviour: "429 with Retry-After: 2 on the first attempt (nothing created); the retry is placed as usual",
    match: { firstN: 1 },
    effects: { httpError: { status: 429, retryAfter: 2, when: "before_commit" } },
  },
  {
    account: "+254700000010",
    service: "safaricom",
    name: "insufficient-balance",
    behaviour: "402 insufficient balance (status 7, no id) whatever the wallet holds",
    effects: { insufficientBalance: true },
  },
  {
    account: "+254700000011",
    service: "safaricom",
    name: "duplicate-webhook",
    behaviour: "Succeeds; every webhook comes with 2 duplicates: 3 deliveries, one webhook-id",
    effects: { outcome: { status: 20 }, webhook: { duplicate: 2 } },
  },
  {
    account: "+254700000012",
    service: "safaricom",
    name: "out-of-order-webhook",
    behaviour: "Succeeds; after the final webhook a stale one (an earlier status) arrives",
    effects: { outcome: { status: 20 }, webhook: { outOfOrder: true } },
  },
  {
    account: "+254700000013",
    service: "safaricom",
    name: "bad-signature-webhook",
    behaviour: "Succeeds; the webhook is signed with a wrong secret (reject it)",
    effects: { outcome: { status: 20 }, webhook: { badSignature: true } },
  },
  {
    account: "+254700000014",
    service: "safaricom",
    name: "dropped-webhook",
    behaviour: "Succeeds; no webhook is ever sent (poll the status endpoint)",
    effects: { outcome: { status: 20 }, webhook: { drop: true } },
  },
  {
    account: "+254700000015",
    service: "safaricom",
    name: "webhook-before-response",
    behaviour: "Succeeds at once; the final webhook arrives before the HTTP response",
    effects: { outcome: { status: 20, after: "0ms" }, webhook: { beforeResponse: true } },
  },
  {
    account: "+254700000016",
    service: "safaricom",
    name: "error-after-commit",
    behaviour: "First attempt: 500 although the order was created; a retry with the same key gets it",
    match: { attempt: 1 },
    effects: { httpError: { status: 500, when: "after_commit" }, outcome: { status: 20 } },
  },
  {
    account: "+254700000017",
    service: "safaricom",
    name: "operator-down",
    behaviour: "502 on every attempt; nothing is ever created",
    effects: { httpError: { status: 502, when: "before_commit" } },
  },
  {
    account: "+254700000018",
    service: "safaricom",
    name: "reset-before-commit",
    behaviour: "First attempt: the connection drops before anything is created; a retry creates the order",
    match: { attempt: 1 },
    effects: { dropResponse: { when: "before_commit" } },
  },
  {
    account: "+254700000019",
    service: "safaricom",
    name: "delayed-webhook",
    behaviour: "Succeeds; each webhook is sent 30 s late",
    effects: { outcome: { status: 20 }, webhook: { delay: "30s" } },
  },
  ...(
    [
      ["airtel", "+25473000000"],
      ["telkom", "+25477000000"],
      ["jtl", "+25474700000"],
      ["equitel", "+25476300000"],
    ] as const
  ).flatMap(([service, block]): MagicAccount[] => [
    {
      account: `${block}0`,
      service,
      name: `${service}-success`,
      behaviour: `Succeeds (20) after the default delay; ${service} detected from the prefix`,
      effects: { outcome: { status: 20 } },
    },
    {
      account: `${block}1`,
      service,
      name: `${service}-failed`,
      behaviour: "Fails (2) after the default delay; the wallet is refunded",
      effects: { outcome: { status: 2 } },
    },
  ]),
];

function buildScenario(): LoadedScenario {
  const definition: ScenarioFileInput = {
    name: MAGIC_ACCOUNTS_SCENARIO_NAME,
    description:
      "Built-in: a fixed number for each outcome and fault (see 'Magic test accounts' in docs/scenarios.md).",
    rules: MAGIC_ACCOUNTS.map((entry) => ({
      name: entry.name,
      match: { account: { exact: entry.account }, ...entry.match },
      effects: entry.effects,
    })),
  };
  const result = validateScenario(definition, "built-in");
  if (!result.ok) {
    throw new Error(`the magic accounts table is invalid: ${result.issues.map((issue) => issue.message).join("; ")}`);
  }
  return result.scenario;
}

/** The magic accounts as a scenario (always evaluated last). */
export const MAGIC_ACCOUNTS_SCENARIO: LoadedScenario = buildScenario();

/** The national form (`0700000001`) of an E.164 magic account. */
export function nationalForm(e164: string): string {
  return `0${e164.slice(4)}`;
}

/** The docs table (Markdown), generated so docs/scenarios.md never drifts from the code. */
export function renderMagicAccountsTable(): string {
  const rows = MAGIC_ACCOUNTS.map(
    (entry) =>
      `| \`${entry.account}\` | \`${nationalForm(entry.account)}\` | ${entry.service} | \`${entry.name}\` | ${entry.behaviour} |`,
  );
  return ["| Account (E.164) | National | Service | Rule | What happens |", "|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}
