/**
 * The idempotency key's length limit is exact: up to 255 characters are
 * accepted (the order is placed), 256 and more are rejected with
 * invalid_idempotency_key — in the header (bare or as a quoted sf-string)
 * and in the body.
 */
import fc from "fast-check";
import { IDEMPOTENCY_KEY_PATTERN } from "../../contract/public-schemas.ts";
import { recordPlaced } from "../audit/ledger.ts";
import type { HarnessContext } from "../harness-context.ts";
import { directApi, lazySession, smallestOrder } from "../harness-context.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";

/** The limit in the interface (§4.4, §8). */
const MAX_KEY_LENGTH = 255;
const AMOUNT = 10;

export function createKeyLengthProperty(harness: HarnessContext): ContractProperty {
  const session = lazySession(harness);
  const lengths = fc.oneof(
    fc.constantFrom(MAX_KEY_LENGTH, MAX_KEY_LENGTH + 1, MAX_KEY_LENGTH - 1, MAX_KEY_LENGTH + 2),
    // From 16: short enough keys could not carry the run's unique prefix.
    fc.integer({ min: 16, max: 400 }),
  );
  return {
    name: "key-length",
    summary: "idempotency keys: 1–255 characters accepted, 256+ rejected (header and body)",
    checks: [...CONFORMANCE_CHECKS, "negative_input_rejected"],
    // The bounds, each once: 255 and 256 characters, in the body and in the header, bare and as an sf-string.
    examples: [MAX_KEY_LENGTH, MAX_KEY_LENGTH + 1].flatMap((length) => [
      [length, "body", 0, false],
      [length, "header", 0, false],
      [length, "header", 0, true],
    ]),
    build(env) {
      return fc.asyncProperty(
        lengths,
        fc.constantFrom<"header" | "body">("header", "body"),
        fc.nat({ max: 1000 }),
        fc.boolean(),
        async (length, keyIn, recipientIndex, quotedIfHeader) => {
          fc.pre(harness.budget.canSpend(AMOUNT * 100));
          await recordRun(env.recorder, async (transcript) => {
            const { token } = await session();
            const prefix = harness.nextPrefix();
            const api = directApi(harness, env.checker, prefix);
            const recipient = harness.recipients[recipientIndex % harness.recipients.length];
            if (recipient === undefined) return;
            // Unique per run: the prefix, padded to the exact length with visible ASCII.
            const key = `${prefix}-`.padEnd(length, "k").slice(0, length);
            const accepted = length <= MAX_KEY_LENGTH && IDEMPOTENCY_KEY_PATTERN.test(key);
            // RFC 8941 sf-string: the same key between double quotes (the quotes do not count).
            // Quoting (RFC 8941) is our spec's decision; the interface shows the bare header only.
            const quoted = harness.profile === "strict" && keyIn === "header" && quotedIfHeader;
            harness.budget.reserve(AMOUNT * 100);
            transcript.step(
              `place an order with a ${length}-character idempotency key in the ${keyIn}${quoted ? ", quoted" : ""}`,
            );
            const result = await api.sendAirtime({
              token,
              body: smallestOrder(harness, recipient, `${prefix}-key`),
              key,
              keyIn,
              ...(quoted ? { headers: { "idempotency-key": `"${key}"` } } : {}),
            });
            recordPlaced(harness.ledger, token, `${prefix}-key`, AMOUNT * 100, result);
            if (result.kind !== "response") return;
            const { response } = result;
            const code = harness.provider.readErrorCode(response.json);
            // §4.4 and §8 state the length; the status and code of a refusal are our spec's (§7: not shown).
            const refused =
              harness.profile === "strict"
                ? response.status === 400 &&
                  (code === "invalid_idempotency_key" || (keyIn === "body" && code === "validation_failed"))
                : response.status >= 400 && response.status < 500;
            env.checker.that(
              "negative_input_rejected",
              accepted ? response.status === 200 : refused,
              () =>
                `a ${length}-character key in the ${keyIn}${quoted ? " (quoted)" : ""}: expected ${accepted ? "200" : "400 invalid_idempotency_key"}, got HTTP ${response.status} ${String(code ?? "")}`,
            );
          });
        },
      );
    },
  };
}
