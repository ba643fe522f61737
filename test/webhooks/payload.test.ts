import fc from "fast-check";
import { expect, it } from "vitest";
import { SERVICES } from "../../src/contract/operators.ts";
import { DEFAULT_STATUS_DEFINITIONS, DEFAULT_STATUS_TABLE, isFinalStatus } from "../../src/contract/status-codes.ts";
import { WebhookPayloadSchema } from "../../src/contract/webhook-schemas.ts";
import type { Order } from "../../src/domain/model.ts";
import type { StatusChange } from "../../src/domain/service-types.ts";
import { buildStalePayload, buildWebhookPayload, staleEntryBefore } from "../../src/webhooks/payload.ts";

const at = Date.parse("2026-03-02T09:15:00Z");

function change(overrides: Partial<Order> = {}, balanceCents = 990_000): StatusChange {
  const order: Order = {
    id: "ord_1",
    customerId: "acme",
    reference: "REF-1",
    service: "safaricom",
    account: "+254712345678",
    amountCents: 10_050,
    currency: "KES",
    shortcode: null,
    status: 20,
    message: "Success",
    createdAt: at,
    updatedAt: at + 2000,
    history: [
      { status: 0, message: "Pending", at },
      { status: 3, message: "Submitted", at: at + 500 },
      { status: 20, message: "Success", at: at + 2000 },
    ],
    ...overrides,
  };
  return { order, previousStatus: 3, final: true, wallet: { shortcode: null, balanceCents, currency: "KES" } };
}

it("builds the flat provider-like body: KES amounts, the simulator time of the status", () => {
  const payload = buildWebhookPayload(change());
  expect(WebhookPayloadSchema.parse(payload)).toEqual({
    type: "airtime.status",
    id: "ord_1",
    reference: "REF-1",
    status: 20,
    message: "Success",
    final: true,
    service: "safaricom",
    account: "+254712345678",
    amount: 100.5,
    balance: 9900,
    currency: "KES",
    shortcode: null,
    timestamp: "2026-03-02T09:15:02.000Z",
  });
});

it("the stale status is the last non-final one before the final (Pending when there is none)", () => {
  const withPath = change();
  expect(staleEntryBefore(withPath, DEFAULT_STATUS_TABLE)).toEqual({ status: 3, message: "Submitted", at: at + 500 });
  expect(buildStalePayload(withPath, staleEntryBefore(withPath, DEFAULT_STATUS_TABLE))).toMatchObject({
    status: 3,
    final: false,
    timestamp: "2026-03-02T09:15:00.500Z",
  });
  const direct = change({ history: [{ status: 20, message: "Success", at: at + 2000 }] });
  expect(staleEntryBefore(direct, DEFAULT_STATUS_TABLE)).toMatchObject({ status: 0, message: "Pending" });
});

it("every status change gives a body the schema accepts (property)", () => {
  const statuses = DEFAULT_STATUS_DEFINITIONS.map((d) => d.code);
  fc.assert(
    fc.property(
      fc.constantFrom(...statuses),
      fc.constantFrom(...SERVICES),
      fc.integer({ min: 1000, max: 1_000_000 }),
      fc.integer({ min: 0, max: 10_000_000_000 }),
      fc.option(fc.stringMatching(/^[0-9]{5,7}$/), { nil: null }),
      fc.string({ minLength: 1, maxLength: 100 }),
      (status, service, amountCents, balanceCents, shortcode, reference) => {
        const final = isFinalStatus(DEFAULT_STATUS_TABLE, status);
        const input = { ...change({ status, service, amountCents, shortcode, reference }, balanceCents), final };
        const payload = WebhookPayloadSchema.parse(buildWebhookPayload(input));
        expect(payload.amount * 100).toBeCloseTo(amountCents);
        expect(payload.final).toBe(final);
        expect(payload.reference).toBe(reference);
      },
    ),
    { numRuns: 100 },
  );
});
