/**
 * A tour of the statuses the contract documents — 200, 400, 402, 404, 405,
 * 409 — each provoked on purpose and judged by the conformance checks, so
 * every status's body, media type and code is exercised in every run. Under
 * `interface` the same requests are judged only by what the interface and
 * the provider profile state: a wrong method by the profile's
 * `http.wrongMethod` where given, and an insufficient balance as a failed
 * order (beyond-balance.ts).
 */
import type { CompiledProfile } from "../../contract/provider-profile/compile.ts";
import fc from "fast-check";
import { DEFAULT_ORDER_LIMITS } from "../../contract/public-schemas.ts";
import type { Recipient } from "../accounts.ts";
import type { CallResult, PublicApi } from "../api.ts";
import { recordPlaced } from "../audit/ledger.ts";
import type { Checker } from "../checker.ts";
import type { HarnessContext } from "../harness-context.ts";
import { directApi, lazySession } from "../harness-context.ts";
import type { Strictness } from "../strictness.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import { answerRefusalMismatch, statedRefusal } from "../stated-refusal.ts";
import type { Transcript } from "../transcript.ts";
import { amountBeyond, noteUnprovokedBeyondBalance, orderBeyondSecondCustomer } from "./beyond-balance.ts";

const AMOUNT = 10;

interface Tour {
  readonly api: PublicApi;
  readonly provider: CompiledProfile;
  readonly checker: Checker;
  readonly transcript: Transcript;
  readonly token: string;
  readonly prefix: string;
  readonly recipient: Recipient | undefined;
  readonly account: string;
}

interface Stop {
  readonly name: string;
  /** Cents the stop may spend (reserved from the budget first). */
  readonly cents: number;
  readonly adminOnly: boolean;
  /** The one profile the stop belongs to; absent → both. */
  readonly only?: Strictness;
  visit(tour: Tour, harness: HarnessContext): Promise<void>;
}

function expectStatus(tour: Tour, result: CallResult, status: number, code: string | undefined, what: string): void {
  if (result.kind !== "response") return;
  const answered = tour.provider.readErrorCode(result.response.json);
  tour.checker.that(
    "status_code_conformance",
    result.response.status === status && (code === undefined || answered === code),
    () =>
      `${what}: expected HTTP ${status}${code ? ` ${code}` : ""}, got HTTP ${result.response.status} ${String(answered ?? "")}`,
  );
}

/** A failed order leaves nothing behind: its reference is not found. */
async function expectNoOrder(tour: Tour, reference: string, token: string): Promise<void> {
  tour.transcript.step(`look up ${reference}: a failed order leaves nothing behind`);
  expectStatus(tour, await tour.api.lookup(reference, { token }), 404, "not_found", "the failed order's reference");
}

function order(tour: Tour, reference: string): Record<string, unknown> {
  return { account: tour.account, amount: AMOUNT, currency: "KES", reference };
}

const STOPS: readonly Stop[] = [
  {
    name: "a valid order → 200",
    cents: AMOUNT * 100,
    adminOnly: false,
    async visit(tour, harness) {
      const result = await tour.api.sendAirtime({
        token: tour.token,
        body: order(tour, `${tour.prefix}-ok`),
        key: `${tour.prefix}-ok`,
      });
      recordPlaced(harness.ledger, tour.token, `${tour.prefix}-ok`, AMOUNT * 100, result);
      expectStatus(tour, result, 200, undefined, "a valid order");
    },
  },
  {
    name: "an unknown reference → 404 not_found",
    cents: 0,
    adminOnly: false,
    async visit(tour) {
      expectStatus(
        tour,
        await tour.api.lookup(`${tour.prefix}-missing`, { token: tour.token }),
        404,
        "not_found",
        "an unknown reference",
      );
    },
  },
  {
    name: "an unknown path → 404 not_found",
    cents: 0,
    adminOnly: false,
    async visit(tour) {
      const result = await tour.api.raw(
        { method: "GET", path: "/v1/nothing-here", headers: { authorization: `Bearer ${tour.token}` } },
        "other",
      );
      expectStatus(tour, result, 404, "not_found", "GET /v1/nothing-here");
    },
  },
  {
    name: "DELETE /v1/airtime → 405 method_not_allowed",
    cents: 0,
    adminOnly: false,
    async visit(tour, harness) {
      const result = await tour.api.raw(
        { method: "DELETE", path: "/v1/airtime", headers: { authorization: `Bearer ${tour.token}` } },
        "other",
      );
      if (harness.profile !== "strict") return expectStatedWrongMethod(tour, result);
      expectStatus(tour, result, 405, "method_not_allowed", "DELETE /v1/airtime");
      if (result.kind === "response") {
        tour.checker.that(
          "status_code_conformance",
          /POST/.test(result.response.headers.allow ?? ""),
          () =>
            `DELETE /v1/airtime: 405 without an Allow header naming POST (Allow: ${result.response.headers.allow ?? "none"})`,
        );
      }
    },
  },
  {
    name: "a balance for an unknown shortcode → 400 unknown_shortcode",
    cents: 0,
    adminOnly: false,
    async visit(tour) {
      const result = await tour.api.raw(
        { method: "GET", path: "/v1/balance?shortcode=000000000", headers: { authorization: `Bearer ${tour.token}` } },
        "balance",
      );
      expectStatus(tour, result, 400, "unknown_shortcode", "GET /v1/balance?shortcode=000000000");
    },
  },
  {
    name: "a reference used twice with two keys → 409 duplicate_reference",
    cents: 2 * AMOUNT * 100,
    adminOnly: false,
    async visit(tour, harness) {
      const reference = `${tour.prefix}-dup`;
      const first = await tour.api.sendAirtime({
        token: tour.token,
        body: order(tour, reference),
        key: `${tour.prefix}-d1`,
      });
      recordPlaced(harness.ledger, tour.token, reference, AMOUNT * 100, first);
      expectStatus(tour, first, 200, undefined, "the first order");
      tour.transcript.step(`order again under ${reference} with another key`);
      const second = await tour.api.sendAirtime({
        token: tour.token,
        body: order(tour, reference),
        key: `${tour.prefix}-d2`,
      });
      expectStatus(tour, second, 409, "duplicate_reference", "the same reference with another key");
    },
  },
  {
    name: "an order beyond the balance → 402 insufficient_balance, no order",
    cents: AMOUNT * 100,
    adminOnly: true,
    async visit(tour, harness) {
      const empty = await harness.target.emptySession();
      if (empty === undefined) return;
      const reference = `${tour.prefix}-poor`;
      const result = await tour.api.sendAirtime({
        token: empty.token,
        body: order(tour, reference),
        key: `${tour.prefix}-p`,
      });
      expectStatus(tour, result, 402, "insufficient_balance", "an order from an empty wallet");
      await expectNoOrder(tour, reference, empty.token);
    },
  },
  {
    name: "an order beyond the smallest wallet → 402 insufficient_balance, no order (no admin powers needed)",
    cents: 0,
    adminOnly: false,
    only: "strict",
    async visit(tour, harness) {
      // The smallest wallet, read from GET /v1/balance: an order one shilling beyond it cannot be covered.
      const balance = await tour.api.balance({ token: tour.token });
      if (balance.kind !== "response" || balance.response.status !== 200) return;
      const wallet = smallestWallet(balance.response.json);
      if (wallet === undefined) {
        // With admin powers the empty-wallet stop provokes the rule instead.
        if (harness.target.admin === undefined) {
          noteUnprovokedBeyondBalance(
            harness,
            tour.checker,
            "status_code_conformance",
            `every wallet of the customer holds more than the largest allowed order (KES ${DEFAULT_ORDER_LIMITS.maxAmount})`,
          );
        }
        return;
      }
      const amount = amountBeyond(Math.round(wallet.amount * 100), DEFAULT_ORDER_LIMITS);
      if (amount === undefined || !harness.budget.reserve(amount * 100)) return;
      const reference = `${tour.prefix}-beyond`;
      tour.transcript.step(
        `order KES ${amount} from the smallest wallet (${wallet.shortcode ?? "default"}, KES ${wallet.amount})`,
      );
      const result = await tour.api.sendAirtime({
        token: tour.token,
        body: {
          ...order(tour, reference),
          amount,
          ...(wallet.shortcode === null ? {} : { shortcode: wallet.shortcode }),
        },
        key: `${tour.prefix}-b`,
      });
      expectStatus(tour, result, 402, "insufficient_balance", "an order beyond the smallest wallet");
      await expectNoOrder(tour, reference, tour.token);
    },
  },
  {
    name: "an order beyond the second customer's balance → a failed order without an id (§7), no order",
    cents: 0,
    adminOnly: false,
    only: "interface",
    async visit(tour, harness) {
      await orderBeyondSecondCustomer({ ...tour, harness });
    },
  },
];

/**
 * Under `interface` a wrong method is judged only where the profile states
 * its status (`http.wrongMethod`); the interface itself says nothing of it.
 */
function expectStatedWrongMethod(tour: Tour, result: CallResult): void {
  if (result.kind !== "response" || statedRefusal(tour.provider, "wrongMethod").status === undefined) return;
  const mismatch = answerRefusalMismatch(tour.provider, "wrongMethod", result.response, "order");
  tour.checker.that(
    "negative_input_rejected",
    mismatch === undefined,
    () => `DELETE /v1/airtime, a wrong method (http.wrongMethod): ${mismatch}`,
  );
}

/** The wallet with the least money that one order can exceed, from a balance body. */
function smallestWallet(body: unknown): { readonly shortcode: string | null; readonly amount: number } | undefined {
  const wallets = (body as { wallets?: unknown } | undefined)?.wallets;
  if (!Array.isArray(wallets)) return undefined;
  const usable = wallets
    .map((w: { shortcode?: unknown; amount?: unknown }) => ({
      shortcode: typeof w.shortcode === "string" ? w.shortcode : null,
      amount: typeof w.amount === "number" ? w.amount : Number.NaN,
    }))
    .filter((w) => Number.isFinite(w.amount) && w.amount < DEFAULT_ORDER_LIMITS.maxAmount)
    .sort((a, b) => a.amount - b.amount);
  return usable[0];
}

export function createStatusCodesProperty(harness: HarnessContext): ContractProperty {
  const session = lazySession(harness);
  const stops = STOPS.filter(
    (stop) =>
      (!stop.adminOnly || harness.target.admin !== undefined) &&
      (stop.only === undefined || stop.only === harness.profile),
  );
  return {
    name: "status-codes",
    summary: "each documented status provoked on purpose: 200, 400, 402, 404, 405, 409",
    // The stated wrong method is a refused request; a failed order that moved money is a wrong charge.
    checks: [...CONFORMANCE_CHECKS, "negative_input_rejected", "no_double_charge"],
    build(env) {
      return fc.asyncProperty(fc.constantFrom(...stops), fc.nat({ max: 1000 }), async (stop, recipientIndex) => {
        fc.pre(harness.budget.canSpend(stop.cents));
        await recordRun(env.recorder, async (transcript) => {
          const { token } = await session();
          const prefix = harness.nextPrefix();
          const recipient = harness.recipients[recipientIndex % harness.recipients.length];
          harness.budget.reserve(stop.cents);
          transcript.step(stop.name);
          await stop.visit(
            {
              api: directApi(harness, env.checker, prefix),
              checker: env.checker,
              provider: harness.provider,
              transcript,
              token,
              prefix,
              recipient,
              account: recipient?.account ?? "",
            },
            harness,
          );
        });
      });
    },
  };
}
