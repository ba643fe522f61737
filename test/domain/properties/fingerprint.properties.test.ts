/**
 * The payload an idempotency key is bound to is compared after
 * normalisation: the written form of the account and trailing zeros of the
 * amount never matter; every real difference does.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { toCents } from "../../../src/contract/money.ts";
import { fingerprintOrder } from "../../../src/domain/idempotency.ts";
import type { Customer } from "../../../src/domain/model.ts";
import { normaliseOrderRequest } from "../../../src/domain/airtime-service.ts";
import type { PlaceOrderCommand } from "../../../src/domain/service-types.ts";
import { formIndex, safaricomNsn, writtenForm } from "./arbitraries.ts";

const CUSTOMER: Customer = {
  id: "cus_1",
  name: "Shop",
  tokens: ["t"],
  apiKey: "k",
  wallets: [
    { shortcode: null, balanceCents: 0, currency: "KES" },
    { shortcode: "600100", balanceCents: 0, currency: "KES" },
  ],
};

type Request = PlaceOrderCommand["request"];
type Fingerprinter = (request: Request) => string | undefined;

const normalised: Fingerprinter = (request) => {
  const result = normaliseOrderRequest(CUSTOMER, request);
  return result.kind === "normalised" ? fingerprintOrder(result.fingerprint) : undefined;
};

/** A deliberately naive variant: the raw request as sent. */
const raw: Fingerprinter = (request) => JSON.stringify(request);

/** An amount in KES as a JSON body would carry it: `10.1` and `10.10` parse alike. */
function amountFromJson(text: string): number {
  return toCents(JSON.parse(text) as number);
}

const amountTexts = fc.integer({ min: 1_000, max: 1_000_000 }).map((cents) => {
  const kes = cents / 100;
  return [String(kes), kes.toFixed(2)] as const;
});

function sameOrderInTwoForms(fingerprint: Fingerprinter) {
  return fc.property(
    safaricomNsn,
    formIndex,
    formIndex,
    amountTexts,
    fc.boolean(),
    (nsn, formA, formB, [short, padded], wallet) => {
      const base = { currency: "KES", reference: "r-1", ...(wallet ? { shortcode: "600100" } : {}) };
      const a = fingerprint({ ...base, account: writtenForm(nsn, formA), amountCents: amountFromJson(short) });
      const b = fingerprint({
        ...base,
        account: writtenForm(nsn, formB),
        amountCents: amountFromJson(padded),
        service: "safaricom",
      });
      expect(a).toBeDefined();
      expect(a).toBe(b);
    },
  );
}

describe("fingerprint properties", () => {
  it.prop([safaricomNsn, formIndex, formIndex], { numRuns: 100 })(
    "the four written forms of one account normalise alike",
    (nsn, formA, formB) => {
      const request = { amountCents: 1_000, currency: "KES", reference: "r" };
      expect(normalised({ ...request, account: writtenForm(nsn, formA) })).toBe(
        normalised({ ...request, account: writtenForm(nsn, formB) }),
      );
    },
  );

  it("equivalent account forms, 10.1 vs 10.10 and a matching explicit service give one fingerprint", () => {
    fc.assert(sameOrderInTwoForms(normalised), { numRuns: 100 });
  });

  it.prop(
    [
      safaricomNsn,
      fc.integer({ min: 1_000, max: 100_000 }),
      fc.constantFrom("account", "amountCents", "reference", "shortcode", "service"),
    ],
    { numRuns: 100 },
  )("any real difference gives another fingerprint", (nsn, amountCents, field) => {
    const request: Request = { account: `0${nsn}`, amountCents, currency: "KES", reference: "r" };
    const other: Request = {
      account: { ...request, account: `0${nsn.slice(0, 8)}${(Number(nsn[8]) + 1) % 10}` },
      amountCents: { ...request, amountCents: amountCents + 1 },
      reference: { ...request, reference: "r2" },
      shortcode: { ...request, shortcode: "600100" },
      service: { ...request, service: "airtel" as const },
    }[field];
    expect(normalised(other)).not.toBe(normalised(request));
  });

  it("the property catches a fingerprint of the raw request", () => {
    const result = fc.check(sameOrderInTwoForms(raw), { numRuns: 100, seed: 1 });
    expect(result.failed).toBe(true);
    expect(result.counterexample).not.toBeNull();
  });
});
