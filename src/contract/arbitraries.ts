/**
 * fast-check generators for send-airtime requests, derived from the same
 * rules as the zod schemas: valid orders in every number form and service
 * spelling, and invalid orders that break exactly one field, each with the
 * JSON Pointer the rejection must name. Used by the schema tests, the
 * simulator's property tests and the contract harness.
 */
import fc from "fast-check";
import { ACCOUNT_PATTERN, blocksOf, detectService, parseKenyanMobile, SERVICES, type Service } from "./operators.ts";
import {
  DEFAULT_ORDER_LIMITS,
  type OrderLimits,
  REFERENCE_MAX_LENGTH,
  ReferenceSchema,
  type SendAirtimeRequest,
} from "./public-schemas.ts";

/**
 * The order generators' settings, normalised once: their defaults in one
 * table, and one frozen settings object the valid and invalid order
 * generators read as it is.
 */
export interface ValidOrderOptions {
  readonly limits?: OrderLimits;
  /** Only these operators (default: all five). */
  readonly services?: readonly Service[];
  /** Only these recipients, as written (e.g. a real deployment's allow-list); default: generated. */
  readonly accounts?: readonly string[];
  /** Wallet shortcodes to pick from (sometimes omitted); default: never sent. */
  readonly shortcodes?: readonly string[];
  /** `always`, `never` or `sometimes` (default) send a body `idempotencyKey`. */
  readonly bodyKey?: "always" | "never" | "sometimes";
}

const ORDER_ARBITRARY_DEFAULTS = Object.freeze({
  limits: DEFAULT_ORDER_LIMITS,
  services: SERVICES,
  shortcodes: Object.freeze([]) as readonly string[],
  bodyKey: "sometimes",
} as const);

/**
 * @example
 * orderArbitrarySettings({ bodyKey: "never" }).services; // ["safaricom", "airtel", "telkom", "jtl", "equitel"]
 */
export function orderArbitrarySettings(options: ValidOrderOptions) {
  return Object.freeze({
    limits: options.limits ?? ORDER_ARBITRARY_DEFAULTS.limits,
    services: options.services ?? ORDER_ARBITRARY_DEFAULTS.services,
    /** Undefined: recipients are generated. */
    accounts: options.accounts,
    shortcodes: options.shortcodes ?? ORDER_ARBITRARY_DEFAULTS.shortcodes,
    bodyKey: options.bodyKey ?? ORDER_ARBITRARY_DEFAULTS.bodyKey,
  });
}

export type OrderArbitrarySettings = ReturnType<typeof orderArbitrarySettings>;

// ── Kenyan numbers ──────────────────────────────────────────────────────────

/** The four ways to write one subscriber (see docs/simulator.md, "Placing an order"). */
export const ACCOUNT_FORMS = ["e164", "international", "national", "nsn"] as const;
export type AccountForm = (typeof ACCOUNT_FORMS)[number];

/**
 * Writes a 9-digit NSN in one of the four forms.
 *
 * @example
 * formatAccount("712345678", "e164"); // "+254712345678"
 * formatAccount("712345678", "national"); // "0712345678"
 */
export function formatAccount(nsn: string, form: AccountForm): string {
  switch (form) {
    case "e164":
      return `+254${nsn}`;
    case "international":
      return `254${nsn}`;
    case "national":
      return `0${nsn}`;
    case "nsn":
      return nsn;
    default: {
      const unreachable: never = form;
      throw new Error(`unknown account form ${String(unreachable)}`);
    }
  }
}

/**
 * A 9-digit NSN whose prefix belongs to `owner` (`"none"`: a mobile prefix no
 * operator of the five owns), or to any operator when omitted.
 *
 * @example
 * fc.sample(nsnArbitrary("jtl"), 1); // ["747031958"]
 */
export function nsnArbitrary(owner?: Service | "none"): fc.Arbitrary<string> {
  const blocks =
    owner === undefined ? SERVICES.flatMap((s) => blocksOf(s)) : blocksOf(owner === "none" ? undefined : owner);
  return fc
    .tuple(fc.constantFrom(...blocks), fc.integer({ min: 0, max: 999_999 }))
    .map(([block, rest]) => block + String(rest).padStart(6, "0"));
}

export interface GeneratedAccount {
  /** The account as sent. */
  readonly account: string;
  readonly nsn: string;
  readonly form: AccountForm;
  /** The operator owning the prefix, undefined when none of the five does. */
  readonly owner: Service | undefined;
}

/** An account in a random form, owned by `owner` (any operator when omitted). */
function accountArbitrary(owner?: Service | "none"): fc.Arbitrary<GeneratedAccount> {
  return fc.tuple(nsnArbitrary(owner), fc.constantFrom(...ACCOUNT_FORMS)).map(([nsn, form]) => ({
    account: formatAccount(nsn, form),
    nsn,
    form,
    owner: detectService(nsn),
  }));
}

// ── Fields ──────────────────────────────────────────────────────────────────

/** Amounts inside the limits with at most two decimals, the bounds included often. */
export function amountArbitrary(limits: OrderLimits = DEFAULT_ORDER_LIMITS): fc.Arbitrary<number> {
  const min = Math.round(limits.minAmount * 100);
  const max = Math.round(limits.maxAmount * 100);
  return fc
    .oneof(
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
      { weight: 4, arbitrary: fc.integer({ min, max }) },
      {
        weight: 2,
        arbitrary: fc.integer({ min: Math.ceil(min / 100), max: Math.floor(max / 100) }).map((n) => n * 100),
      },
    )
    .map((cents) => cents / 100);
}

/** fast-check's "binary" unit: every code point but the surrogates, in code point order. */
const SURROGATE_FIRST = 0xd800;
const SURROGATE_COUNT = 0x800;

/**
 * The unit of `fc.string({ unit: "binary" })`, built as fast-check builds it
 * (one index over both ranges, mapped to its code point), so it draws and
 * shrinks the very same strings; only telling whether a character is one of
 * its values is arithmetic here. fast-check's own answers that from a map of
 * all 1.1 million code points, built in about a second of CPU the first
 * time a string arbitrary is made from it — in every process that draws one.
 *
 * @example
 * fc.sample(fc.string({ unit: BINARY_UNIT, maxLength: 4 }), { seed: 1, numRuns: 3 });
 * // the same three strings as fc.string({ unit: "binary", maxLength: 4 }) draws for seed 1
 */
export const BINARY_UNIT: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATE_COUNT }).map(
  (index) => String.fromCodePoint(index < SURROGATE_FIRST ? index : index + SURROGATE_COUNT),
  (value) => {
    const codePoint = typeof value === "string" ? value.codePointAt(0) : undefined;
    const surrogate =
      codePoint !== undefined && codePoint >= SURROGATE_FIRST && codePoint < SURROGATE_FIRST + SURROGATE_COUNT;
    if (codePoint === undefined || surrogate || String.fromCodePoint(codePoint) !== value) {
      throw new Error("not one code point of the binary unit");
    }
    return codePoint < SURROGATE_FIRST ? codePoint : codePoint - SURROGATE_COUNT;
  },
);

/** Characters that break naive URL handling, for references that must round-trip. */
const URL_HOSTILE = Array.from("/?#%&+= .~:@!$'()*,;[]\"<>\\^`{|}é中😀");

/**
 * References the schema accepts: mostly order-number-like, sometimes any
 * Unicode without control characters (including `/`, `%`, `#`, spaces, emoji).
 */
export const referenceArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Z]{2,6}-\d{1,12}$/) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...URL_HOSTILE), minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: BINARY_UNIT, minLength: 1, maxLength: REFERENCE_MAX_LENGTH }) },
  )
  .filter((reference) => ReferenceSchema.safeParse(reference).success);

const VISIBLE_ASCII = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));

/** Valid idempotency keys: UUID v4 (the recommendation) or any 1–255 visible ASCII characters. */
const idempotencyKeyArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.uuid({ version: 4 }),
  fc.string({ unit: VISIBLE_ASCII, minLength: 1, maxLength: 255 }),
  fc.string({ unit: VISIBLE_ASCII, minLength: 250, maxLength: 255 }),
);

// ── Valid orders ────────────────────────────────────────────────────────────

/** How the order names its operator: `service`, the `network` alias, or not at all (detected). */
export const SERVICE_FIELDS = ["service", "network", "detected"] as const;
export type ServiceField = (typeof SERVICE_FIELDS)[number];

export interface GeneratedOrder {
  readonly body: SendAirtimeRequest;
  /** The operator the simulator must resolve: explicit, alias, or detected from the prefix. */
  readonly service: Service;
  readonly serviceField: ServiceField;
  readonly nsn: string;
  /** The form `body.account` is written in (undefined for an allow-listed account). */
  readonly form: AccountForm | undefined;
}

interface Recipient {
  readonly account: string;
  readonly nsn: string;
  readonly form: AccountForm | undefined;
  readonly owner: Service | undefined;
}

function recipientArbitrary({ accounts, services }: OrderArbitrarySettings): fc.Arbitrary<Recipient> {
  if (accounts === undefined) {
    return fc.constantFrom(...services).chain((service) => accountArbitrary(service));
  }
  const parsed = accounts.map((account) => {
    const number = parseKenyanMobile(account);
    if (number === undefined) throw new Error(`allow-listed account ${account} is not a Kenyan mobile number`);
    return { account, nsn: number.nsn, form: undefined, owner: detectService(number.nsn) };
  });
  if (parsed.length === 0) throw new Error("the account allow-list is empty");
  return fc.constantFrom(...parsed);
}

/**
 * Orders the request schema accepts, with what the simulator must make of them.
 *
 * @example
 * fc.assert(fc.property(validOrderArbitrary(), ({ body }) => SendAirtimeRequestSchema.safeParse(body).success));
 */
export function validOrderArbitrary(options: ValidOrderOptions = {}): fc.Arbitrary<GeneratedOrder> {
  const settings = orderArbitrarySettings(options);
  const { limits, services, shortcodes } = settings;
  const key =
    settings.bodyKey === "never"
      ? fc.constant(undefined)
      : settings.bodyKey === "always"
        ? idempotencyKeyArbitrary
        : fc.option(idempotencyKeyArbitrary, { nil: undefined });
  const shortcode =
    shortcodes.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...shortcodes), { nil: undefined });
  return fc
    .record({
      recipient: recipientArbitrary(settings),
      field: fc.constantFrom(...SERVICE_FIELDS),
      explicit: fc.constantFrom(...services),
      amount: amountArbitrary(limits),
      currency: fc.constantFrom(...limits.currencies),
      reference: referenceArbitrary,
      key,
      shortcode,
      name: fc.option(fc.string({ maxLength: 100 }), { nil: undefined }),
      phone: fc.option(
        nsnArbitrary().map((nsn) => `+254${nsn}`),
        { nil: undefined },
      ),
    })
    .map(({ recipient, field, explicit, amount, currency, reference, key, shortcode, name, phone }) => {
      // An account none of the five owns needs an explicit service; a detected one uses its owner.
      const serviceField: ServiceField = field === "detected" && recipient.owner === undefined ? "service" : field;
      const service = serviceField === "detected" ? recipient.owner! : explicit;
      const body: SendAirtimeRequest = {
        ...(serviceField === "service" ? { service } : {}),
        ...(serviceField === "network" ? { network: service } : {}),
        account: recipient.account,
        amount,
        currency,
        reference,
        ...(key === undefined ? {} : { idempotencyKey: key }),
        ...(name === undefined ? {} : { name }),
        ...(phone === undefined ? {} : { phone }),
        ...(shortcode === undefined ? {} : { shortcode }),
      };
      return { body, service, serviceField, nsn: recipient.nsn, form: recipient.form };
    });
}

/** Just the bodies of {@link validOrderArbitrary}. */
export function validSendAirtimeRequestArbitrary(options: ValidOrderOptions = {}): fc.Arbitrary<SendAirtimeRequest> {
  return validOrderArbitrary(options).map((order) => order.body);
}

// ── Invalid orders ──────────────────────────────────────────────────────────

/** Each way one field can be wrong. `_nan`/`_infinity` cannot travel as JSON (it has no NaN). */
export const INVALID_FIELD_KINDS = [
  "amount_zero",
  "amount_negative",
  "amount_three_decimals",
  "amount_below_min",
  "amount_above_max",
  "amount_not_a_number",
  "amount_nan",
  "amount_infinity",
  "account_malformed",
  "account_missing",
  "service_unknown",
  "network_unknown",
  "currency_not_allowed",
  "reference_empty",
  "reference_too_long",
  "reference_control_character",
  "reference_missing",
  "idempotency_key_empty",
  "idempotency_key_too_long",
  "idempotency_key_not_visible_ascii",
] as const;
export type InvalidFieldKind = (typeof INVALID_FIELD_KINDS)[number];

export interface InvalidOrder {
  readonly kind: InvalidFieldKind;
  /** A valid order with one field broken (or removed). */
  readonly body: Record<string, unknown>;
  /** The JSON Pointer every validation issue must name, e.g. `#/amount`. */
  readonly pointer: string;
  /** False when JSON cannot carry the value (NaN, Infinity): test those against the schema directly. */
  readonly jsonSafe: boolean;
}

type Breakage = { readonly field: string; readonly value?: unknown; readonly remove?: true };

const NOT_VISIBLE_ASCII = fc.constantFrom(" ", "\t", "\n", "\u0000", "\u007f", "é", "€", "😀", "\u00a0");

function breakageArbitrary(kind: InvalidFieldKind, limits: OrderLimits): fc.Arbitrary<Breakage> {
  const amount = (value: fc.Arbitrary<unknown>) => value.map((v) => ({ field: "amount", value: v }));
  const min = limits.minAmount;
  const max = limits.maxAmount;
  switch (kind) {
    case "amount_zero":
      return amount(fc.constantFrom(0, -0));
    case "amount_negative":
      return amount(fc.double({ min: -1e9, max: -Number.MIN_VALUE, noNaN: true }));
    case "amount_three_decimals":
      // n + k/1000 with k not a multiple of 10: three significant decimals, inside the range.
      return amount(
        fc
          .tuple(fc.integer({ min: Math.ceil(min), max: Math.floor(max) - 1 }), fc.integer({ min: 1, max: 999 }))
          .filter(([, k]) => k % 10 !== 0)
          .map(([n, k]) => Number(`${n}.${String(k).padStart(3, "0")}`)),
      );
    case "amount_below_min":
      return amount(
        fc
          .integer({ min: 1, max: Math.max(1, Math.round(min * 100) - 1) })
          .map((c) => c / 100)
          .filter((v) => v < min),
      );
    case "amount_above_max":
      return amount(
        fc.integer({ min: Math.round(max * 100) + 1, max: Math.round(max * 100) * 1000 }).map((c) => c / 100),
      );
    case "amount_not_a_number":
      return amount(fc.constantFrom<unknown>("100", null, true, [100], { value: 100 }));
    case "amount_nan":
      return amount(fc.constant(Number.NaN));
    case "amount_infinity":
      return amount(fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));
    case "account_malformed":
      return fc
        .oneof(
          fc.constantFrom(
            "+255712345678",
            "0812345678",
            "07123456789",
            "071234567",
            "+254 712 345 678",
            "0712-345-678",
          ),
          fc.string({ maxLength: 20 }),
          fc.integer({ min: 0, max: 99_999_999_999 }).map(String),
        )
        .filter((value) => !ACCOUNT_PATTERN.test(value))
        .map((value) => ({ field: "account", value }));
    case "account_missing":
      return fc.constant({ field: "account", remove: true });
    case "service_unknown":
    case "network_unknown": {
      const field = kind === "service_unknown" ? "service" : "network";
      return fc
        .oneof(
          fc.constantFrom("orange", "mtn", "Safaricom", "SAFARICOM", " airtel", "telkom-ke", ""),
          fc.string({ maxLength: 12 }),
        )
        .filter((value) => !(SERVICES as readonly string[]).includes(value))
        .map((value) => ({ field, value }));
    }
    case "currency_not_allowed":
      return fc
        .oneof(
          fc.constantFrom("USD", "EUR", "UGX", "TZS", "kes", "Kes", " KES", "KES ", ""),
          fc.stringMatching(/^[A-Z]{3}$/),
        )
        .filter((value) => !limits.currencies.includes(value))
        .map((value) => ({ field: "currency", value }));
    case "reference_empty":
      return fc.constant({ field: "reference", value: "" });
    case "reference_too_long":
      return fc
        .string({ unit: "grapheme-ascii", minLength: REFERENCE_MAX_LENGTH + 1, maxLength: REFERENCE_MAX_LENGTH + 200 })
        .filter((value) => value.length > REFERENCE_MAX_LENGTH && !/\p{Cc}/u.test(value))
        .map((value) => ({ field: "reference", value }));
    case "reference_control_character":
      return fc
        .tuple(
          fc.string({ maxLength: 40 }),
          fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f),
          fc.string({ maxLength: 40 }),
        )
        .map(([before, code, after]) => ({ field: "reference", value: before + String.fromCharCode(code) + after }));
    case "reference_missing":
      return fc.constant({ field: "reference", remove: true });
    case "idempotency_key_empty":
      return fc.constant({ field: "idempotencyKey", value: "" });
    case "idempotency_key_too_long":
      return fc
        .string({ unit: VISIBLE_ASCII, minLength: 256, maxLength: 400 })
        .map((value) => ({ field: "idempotencyKey", value }));
    case "idempotency_key_not_visible_ascii":
      return fc
        .tuple(
          fc.string({ unit: VISIBLE_ASCII, maxLength: 100 }),
          NOT_VISIBLE_ASCII,
          fc.string({ unit: VISIBLE_ASCII, maxLength: 100 }),
        )
        .map(([before, bad, after]) => ({ field: "idempotencyKey", value: before + bad + after }));
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown kind ${String(unreachable)}`);
    }
  }
}

/**
 * Orders with exactly one broken field and the pointer the rejection must name.
 *
 * @example
 * fc.assert(fc.property(invalidOrderArbitrary(), ({ body, pointer }) => {
 *   const result = SendAirtimeRequestSchema.safeParse(body);
 *   return !result.success && result.error.issues.every((i) => `#/${i.path.join("/")}` === pointer);
 * }));
 */
export function invalidOrderArbitrary({
  kinds = INVALID_FIELD_KINDS,
  ...options
}: { readonly kinds?: readonly InvalidFieldKind[]; readonly limits?: OrderLimits } = {}): fc.Arbitrary<InvalidOrder> {
  const { limits } = orderArbitrarySettings(options);
  return fc
    .constantFrom(...kinds)
    .chain((kind) =>
      fc.tuple(fc.constant(kind), breakageArbitrary(kind, limits), validOrderArbitrary({ limits, bodyKey: "never" })),
    )
    .map(([kind, breakage, order]) => {
      const body: Record<string, unknown> = { ...order.body };
      if (breakage.remove) delete body[breakage.field];
      else body[breakage.field] = breakage.value;
      // A broken `network` must not be masked by a valid `service`, and vice versa.
      if (breakage.field === "network") delete body.service;
      if (breakage.field === "service") delete body.network;
      return {
        kind,
        body,
        pointer: `#/${breakage.field}`,
        jsonSafe: kind !== "amount_nan" && kind !== "amount_infinity",
      };
    });
}

/**
 * Invalid `Idempotency-Key` header values an HTTP client can actually send
 * (no CR/LF, no DEL; whitespace only inside, since parsers trim the ends).
 */
export const invalidIdempotencyKeyHeaderArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: VISIBLE_ASCII, minLength: 256, maxLength: 400 }),
  fc
    .tuple(
      fc.string({ unit: VISIBLE_ASCII, minLength: 1, maxLength: 50 }),
      fc.constantFrom(" ", "\t", "é", "\u00a0"),
      fc.string({ unit: VISIBLE_ASCII, minLength: 1, maxLength: 50 }),
    )
    .map(([before, bad, after]) => before + bad + after),
);
