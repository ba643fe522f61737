/**
 * Negative input: every invalid send-airtime request gets a 4xx problem with
 * the right stable code (never a 5xx), and no order exists under its
 * reference afterwards. Every finite case runs once per contract run; the
 * open-ended ones (broken fields, bad key headers) are drawn at random.
 */
import fc from "fast-check";
import type { HarnessContext } from "../harness-context.ts";
import { UnreachableError } from "../checker.ts";
import { answerRefusalMismatch } from "../stated-refusal.ts";
import { directApi, lazySession, orderAmounts } from "../harness-context.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import type { CallResult, PublicApi } from "../api.ts";
import type { Checker } from "../checker.ts";
import type { Transcript } from "../transcript.ts";
import {
  fixedNegativeCases,
  type NegativeCase,
  negativeCaseArbitrary,
  REFERENCE_SLOT,
  requestedCents,
} from "./negative-cases.ts";

/** Bodies above this size may be refused by a provider's own limit (a connection reset included). */
const BODY_LIMIT_SEEN = 64 * 1024;

export function createNegativeInputProperty(harness: HarnessContext): ContractProperty {
  const session = lazySession(harness);
  return {
    name: "negative-input",
    summary: "invalid bodies, malformed JSON, wrong media type, oversized bodies, bad keys",
    checks: [...CONFORMANCE_CHECKS, "negative_input_rejected"],
    examples: fixedNegativeCases(harness.recipients, orderAmounts(harness)).map((negative) => [negative]),
    build(env) {
      const cases = negativeCaseArbitrary(harness.recipients, harness.maxAmountCents, orderAmounts(harness));
      return fc.asyncProperty(cases, async (negative) => {
        // Under a budget, a case asking for more than is left is not sent at all.
        fc.pre(harness.budget.canSpend(requestedCents(negative.body)));
        await recordRun(env.recorder, async (transcript) => {
          const { token } = await session();
          const prefix = harness.nextPrefix();
          const api = directApi(harness, env.checker, prefix);
          const reference = `${prefix}-neg`;
          harness.budget.reserve(requestedCents(negative.body));
          transcript.step(`send an order with ${negative.label}`);
          const body = negative.body.replaceAll(REFERENCE_SLOT, reference);
          const result = await api.sendAirtime({
            token,
            body,
            headers: { "content-type": negative.contentType, ...negative.headers },
          });
          if (result.kind === "unanswered" && result.networkCode !== undefined) {
            // The interface states no body limit (§8), nor that an answer always comes: a provider that
            // drops the connection has answered in its own way. An observation, never the run's end.
            if (harness.profile === "strict") {
              throw new UnreachableError(`POST /v1/airtime: ${result.reason}`, result.networkCode);
            }
            transcript.step(
              `observed: the connection was dropped (${result.networkCode}) on a ${Buffer.byteLength(body)}-byte body; nothing is judged`,
            );
            if (Buffer.byteLength(body) > BODY_LIMIT_SEEN) {
              env.checker.tally(
                "never_server_error",
                `connection dropped on a body over ${BODY_LIMIT_SEEN / 1024} KiB`,
              );
            }
          }
          if (result.kind !== "response") return;
          const { response } = result;
          const code = harness.provider.readErrorCode(response.json);
          // Which inputs are invalid, and how they are refused, is our spec's: `interface` judges less.
          if (harness.profile !== "strict") {
            await judgeUnderInterface(
              { harness, checker: env.checker, api, transcript, negative, reference, token },
              result,
            );
            return;
          }
          env.checker.that(
            "negative_input_rejected",
            negative.expectStatus.includes(response.status) && negative.expectCodes.includes(String(code)),
            () =>
              `${negative.label}: expected HTTP ${negative.expectStatus.join("/")} with code ${negative.expectCodes.join(" or ")}, got HTTP ${response.status} code ${String(code)}`,
          );
          if (!negative.referenceIntact) return;
          transcript.step(`look up ${reference}: the rejected request must not have created an order`);
          const lookup = await api.lookup(reference, { token });
          if (lookup.kind !== "response") return;
          env.checker.that(
            "negative_input_rejected",
            lookup.response.status === 404,
            () =>
              `${negative.label}: rejected, yet GET /v1/airtime/${reference} answered HTTP ${lookup.response.status}`,
          );
        });
      });
    },
  };
}

interface Sent {
  readonly harness: HarnessContext;
  readonly checker: Checker;
  readonly api: PublicApi;
  readonly transcript: Transcript;
  readonly negative: NegativeCase;
  readonly reference: string;
  readonly token: string;
}

/**
 * Under `interface` only an order missing a field §2.1 requires is invalid:
 * it must be refused as the profile states (any 4xx, or a failed order,
 * where it states nothing), and leave no order behind.
 */
async function judgeUnderInterface(sent: Sent, result: CallResult & { kind: "response" }): Promise<void> {
  const { harness, checker, negative } = sent;
  if (negative.missingRequired === undefined) return;
  const { provider } = harness;
  const refused = answerRefusalMismatch(provider, "invalidInput", result.response, "order", true);
  checker.that("negative_input_rejected", refused === undefined, () => `${negative.label} (§2.1): ${refused}`);
  if (!negative.referenceIntact) return;
  sent.transcript.step(`look up ${sent.reference}: the refused order must not exist`);
  const lookup = await sent.api.lookup(sent.reference, { token: sent.token });
  if (lookup.kind !== "response") return;
  const absent = answerRefusalMismatch(provider, "notFound", lookup.response, "lookup");
  checker.that(
    "negative_input_rejected",
    absent === undefined,
    () => `${negative.label}: refused, yet the lookup of ${sent.reference}: ${absent}`,
  );
}
