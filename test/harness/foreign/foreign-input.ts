/**
 * What the foreign provider accepts in `POST /v1/airtime` (§2.1 leaves the
 * formats, bounds and allowed values open): a narrower domain than our spec's,
 * checked by hand as an independent provider would, with every problem named.
 */

const FOREIGN_SERVICES = ["safaricom", "airtel", "telkom"] as const;
const AMOUNT_RANGE = { min: 10, max: 5000 } as const;
const REFERENCE_PATTERN = /^[A-Za-z0-9-]{6,24}$/;
/** Local 07XXXXXXXX / 01XXXXXXXX and international 2547XXXXXXXX / 2541XXXXXXXX; no "+". */
const LOCAL_ACCOUNT = /^0([17]\d{8})$/;
const INTERNATIONAL_ACCOUNT = /^254([17]\d{8})$/;
const KEY_MAX_LENGTH = 255;

export interface OrderInput {
  readonly service: string;
  /** International form, so the two written forms of one number are one payload. */
  readonly account: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly reference: string;
  readonly shortcode: string | undefined;
  readonly name: string | undefined;
  readonly phone: string | undefined;
}

export type ParsedOrder =
  | { readonly ok: true; readonly order: OrderInput; readonly key: string | undefined }
  | { readonly ok: false; readonly problems: readonly string[] }
  /** Only with the `server_error_on_bad_amount` defect: the handler trips over a non-number. */
  | { readonly ok: "crash" };

export interface ParseSettings {
  readonly keyMaxLength: number;
  readonly crashOnBadAmount: boolean;
  readonly defaultShortcode: string;
}

export const DEFAULT_PARSE_SETTINGS: ParseSettings = {
  keyMaxLength: KEY_MAX_LENGTH,
  crashOnBadAmount: false,
  defaultShortcode: "",
};

/** The order in a parsed JSON body, or every problem found in it. */
export function parseOrder(body: unknown, headerKey: string | undefined, settings: ParseSettings): ParsedOrder {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, problems: ["the body must be a JSON object"] };
  }
  const fields = body as Record<string, unknown>;
  if (settings.crashOnBadAmount && fields.amount !== undefined && typeof fields.amount !== "number") {
    return { ok: "crash" };
  }
  const problems: string[] = [];
  const text = (name: string, required: boolean): string | undefined => {
    const value = fields[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string") {
      problems.push(`${name} must be a string`);
      return undefined;
    }
    return value;
  };
  const service = text("service", true);
  if (service !== undefined && !(FOREIGN_SERVICES as readonly string[]).includes(service)) {
    problems.push(`service must be one of ${FOREIGN_SERVICES.join(", ")}`);
  }
  const account = internationalAccount(text("account", true), problems);
  const amountCents = wholeShillings(fields.amount, problems);
  const currency = text("currency", true);
  if (currency !== undefined && currency !== "KES") problems.push("currency must be KES");
  const reference = text("reference", true);
  if (reference !== undefined && !REFERENCE_PATTERN.test(reference)) {
    problems.push(`reference must match ${REFERENCE_PATTERN.source}`);
  }
  const shortcode = text("shortcode", false);
  if (shortcode !== undefined && shortcode !== settings.defaultShortcode) problems.push("shortcode is not yours");
  const name = text("name", false);
  const phone = text("phone", false);
  const key = idempotencyKey(text("idempotencyKey", false), headerKey, settings.keyMaxLength, problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    key,
    order: {
      service: service ?? "",
      account: account ?? "",
      amountCents: amountCents ?? 0,
      currency: currency ?? "",
      reference: reference ?? "",
      shortcode: shortcode ?? settings.defaultShortcode,
      name,
      phone,
    },
  };
}

function internationalAccount(account: string | undefined, problems: string[]): string | undefined {
  if (account === undefined) return undefined;
  const subscriber = LOCAL_ACCOUNT.exec(account)?.[1] ?? INTERNATIONAL_ACCOUNT.exec(account)?.[1];
  if (subscriber === undefined) {
    problems.push("account must be 07XXXXXXXX, 01XXXXXXXX or 254XXXXXXXXX");
    return undefined;
  }
  return `254${subscriber}`;
}

function wholeShillings(amount: unknown, problems: string[]): number | undefined {
  if (typeof amount !== "number" || !Number.isInteger(amount)) {
    problems.push("amount must be a whole number of shillings");
    return undefined;
  }
  if (amount < AMOUNT_RANGE.min || amount > AMOUNT_RANGE.max) {
    problems.push(`amount must be between ${AMOUNT_RANGE.min} and ${AMOUNT_RANGE.max}`);
    return undefined;
  }
  return amount * 100;
}

function idempotencyKey(
  bodyKey: string | undefined,
  headerKey: string | undefined,
  maxLength: number,
  problems: string[],
): string | undefined {
  if (bodyKey !== undefined && headerKey !== undefined && bodyKey !== headerKey) {
    problems.push("the Idempotency-Key header and idempotencyKey differ");
    return undefined;
  }
  const key = headerKey ?? bodyKey;
  if (key !== undefined && (key.length === 0 || key.length > maxLength)) {
    problems.push(`the idempotency key must have 1 to ${maxLength} characters`);
    return undefined;
  }
  return key;
}

/** The payload an idempotency key is bound to: everything the order says, in normal form. */
export function fingerprintOf(order: OrderInput): string {
  return JSON.stringify([
    order.service,
    order.account,
    order.amountCents,
    order.currency,
    order.reference,
    order.shortcode,
    order.name ?? null,
    order.phone ?? null,
  ]);
}
