/**
 * Customer isolation: another customer's token finds none of this customer's
 * orders, and reusing this customer's idempotency key under the other token
 * never answers this customer's order.
 */
import fc from "fast-check";
import { recordPlaced } from "../audit/ledger.ts";
import type { HarnessContext } from "../harness-context.ts";
import { directApi, lazySession, smallestOrder } from "../harness-context.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import type { Session } from "../target.ts";

const AMOUNT = 10;

export function createIsolationProperty(harness: HarnessContext): ContractProperty {
  const session = lazySession(harness);
  let other: Promise<Session | undefined> | undefined;
  return {
    name: "isolation",
    summary: "a second customer sees none of the first one's orders or keys",
    checks: [...CONFORMANCE_CHECKS, "customer_isolation"],
    build(env) {
      return fc.asyncProperty(
        fc.constantFrom<"lookup" | "same-key">("lookup", "same-key"),
        fc.nat({ max: 1000 }),
        async (probe, recipientIndex) => {
          fc.pre(harness.budget.canSpend(AMOUNT * 100 * (probe === "same-key" ? 2 : 1)));
          await recordRun(env.recorder, async (transcript) => {
            other ??= harness.target.otherSession();
            const second = await other;
            if (second === undefined) return;
            const { token } = await session();
            const prefix = harness.nextPrefix();
            const api = directApi(harness, env.checker, prefix);
            const recipient = harness.recipients[recipientIndex % harness.recipients.length];
            const body = smallestOrder(harness, recipient, `${prefix}-iso`);
            const key = `${prefix}-iso`;
            harness.budget.reserve(AMOUNT * 100);
            transcript.step(`customer A places ${body.reference}`);
            const placed = await api.sendAirtime({ token, body, key });
            recordPlaced(harness.ledger, token, body.reference, AMOUNT * 100, placed);
            if (placed.kind !== "response" || placed.response.status !== 200) return;
            const id = harness.provider.readOrder("order", placed.response.json).id;
            if (probe === "lookup") {
              transcript.step(`customer B looks up ${body.reference}`);
              const lookup = await api.lookup(body.reference, { token: second.token });
              if (lookup.kind !== "response") return;
              const status = lookup.response.status;
              env.checker.that(
                "customer_isolation",
                harness.profile === "strict" ? status === 404 : status >= 400 && status < 500,
                () =>
                  `customer B looked up customer A's ${body.reference} and got HTTP ${lookup.response.status} ${lookup.response.text.slice(0, 160)}`,
              );
              return;
            }
            harness.budget.reserve(AMOUNT * 100);
            transcript.step(`customer B sends the same payload with customer A's key`);
            const replay = await api.sendAirtime({ token: second.token, body, key });
            if (replay.kind !== "response") return;
            const answered = harness.provider.readOrder("order", replay.response.json).id;
            env.checker.that(
              "customer_isolation",
              answered !== id,
              () => `customer B reusing customer A's key got customer A's order ${id}`,
            );
          });
        },
      );
    },
  };
}
