/**
 * What the foreign provider accepts in `POST /v1/airtime` (§2.1 leaves the
 * formats, bounds and allowed values open): a narrower domain than our spec's,
 * in a schema of its own (it shares none with our contract), with every
 * problem named.
 */
import { z } from "zod";

/** Local 07XXXXXXXX / 01XXXXXXXX or international 2547XXXXXXXX / 2541XXXXXXXX; no "+". */
const ACCOUNT = /^(?:0|254)([17]\d{8})$/;

export interface OrderInput {
  readonly service: string;
  /** International form, so the two written forms of one number are one payload. */
  readonly account: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly reference: string;
  readonly shortcode: string;
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
  /** Only with the `missing_currency_accepted` defect: an order without a currency is taken as KES. */
  readonly currencyDefaultsToKes: boolean;
  /** The customer's one wallet: the only shortcode accepted, and the one used when none is given. */
  readonly shortcode: string;
}

function orderSchema(settings: ParseSettings) {
  const key = z.string().min(1).max(settings.keyMaxLength);
  return z.object({
    service: z.enum(["safaricom", "airtel", "telkom"]),
    account: z
      .string()
      .regex(ACCOUNT, "must be 07XXXXXXXX, 01XXXXXXXX or 254XXXXXXXXX")
      .transform((account) => account.replace(/^0/, "254")),
    amount: z
      .int("must be a whole number of shillings")
      .min(10)
      .max(5000)
      .transform((amount) => amount * 100),
    currency: settings.currencyDefaultsToKes ? z.literal("KES").default("KES") : z.literal("KES"),
    reference: z.string().regex(/^[A-Za-z0-9-]{6,24}$/),
    shortcode: z.literal(settings.shortcode, "is not one of yours").default(settings.shortcode),
    name: z.string().optional(),
    phone: z.string().optional(),
    idempotencyKey: key.optional(),
    /** The `Idempotency-Key` header, checked by the same rule as the body field. */
    headerKey: key.optional(),
  });
}

/** The order in a parsed JSON body, or every problem found in it. */
export function createOrderParser(settings: ParseSettings): (body: unknown, headerKey?: string) => ParsedOrder {
  const schema = orderSchema(settings);
  return (body, headerKey) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return { ok: false, problems: ["the body must be a JSON object"] };
    }
    const fields = body as Record<string, unknown>;
    if (settings.crashOnBadAmount && fields.amount !== undefined && typeof fields.amount !== "number") {
      return { ok: "crash" };
    }
    const parsed = schema.safeParse({ ...fields, headerKey });
    if (!parsed.success) {
      const where = (path: readonly PropertyKey[]) => (path[0] === "headerKey" ? "Idempotency-Key" : path.join("."));
      return { ok: false, problems: parsed.error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`) };
    }
    const { amount, idempotencyKey, headerKey: header, name, phone, ...rest } = parsed.data;
    if (idempotencyKey !== undefined && header !== undefined && idempotencyKey !== header) {
      return { ok: false, problems: ["the Idempotency-Key header and idempotencyKey differ"] };
    }
    return { ok: true, key: header ?? idempotencyKey, order: { ...rest, amountCents: amount, name, phone } };
  };
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
