/**
 * Negative input: every invalid send-airtime request gets a 4xx problem with
 * the right stable code (never a 5xx), and no order exists under its
 * reference afterwards. Every finite case runs once per contract run; the
 * open-ended ones (broken fields, bad key headers) are drawn at random.
 */
import fc from "fast-check";
import type { HarnessContext } from "../harness-context.ts";
import { directApi, lazySession } from "../harness-context.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import { fixedNegativeCases, negativeCaseArbitrary, REFERENCE_SLOT, requestedCents } from "./negative-cases.ts";

export function createNegativeInputProperty(h: HarnessContext): ContractProperty {
  const session = lazySession(h);
  return {
    name: "negative-input",
    summary: "invalid bodies, malformed JSON, wrong media type, oversized bodies, bad keys",
    checks: [...CONFORMANCE_CHECKS, "negative_input_rejected"],
    examples: fixedNegativeCases(h.recipients).map((negative) => [negative]),
    build(env) {
      return fc.asyncProperty(negativeCaseArbitrary(h.recipients, h.maxAmountCents), async (negative) => {
        // Under a budget, a case asking for more than is left is not sent at all.
        fc.pre(h.budget.canSpend(requestedCents(negative.body)));
        await recordRun(env.recorder, async (transcript) => {
          const { token } = await session();
          const prefix = h.nextPrefix();
          const api = directApi(h, env.checker, prefix);
          const reference = `${prefix}-neg`;
          h.budget.reserve(requestedCents(negative.body));
          transcript.step(`send an order with ${negative.label}`);
          const result = await api.sendAirtime({
            token,
            body: negative.body.replaceAll(REFERENCE_SLOT, reference),
            headers: { "content-type": negative.contentType, ...negative.headers },
          });
          if (result.kind !== "response") return;
          const { response } = result;
          const code = (response.json as { code?: unknown } | undefined)?.code;
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
