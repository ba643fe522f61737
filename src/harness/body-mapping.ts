/**
 * Where a provider keeps what the harness reads — the id, status and
 * reference of an order, and the balance — as JSON pointers (RFC 6901), so a
 * provider that shapes its bodies differently (an envelope, money as
 * strings) can still be judged. The default mapping is our spec's own
 * shape. A mapping file is JSON:
 *
 *   { "order": { "id": "/data/id", "status": "/data/status", "reference": "/data/reference" },
 *     "lookup": { "id": "/data/id", "status": "/data/status", "reference": "/data/reference" },
 *     "webhook": { "status": "/data/status" },
 *     "balance": "/data/amount" }
 *
 * Any part left out keeps its default.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { toCents } from "../contract/money.ts";

const PointerSchema = z.string().regex(/^(\/([^~/]|~[01])*)*$/, "must be a JSON pointer such as /data/id");
const OrderPointersSchema = z
  .object({ id: PointerSchema, status: PointerSchema, reference: PointerSchema })
  .partial()
  .strict();

const BodyMappingFileSchema = z
  .object({
    order: OrderPointersSchema,
    lookup: OrderPointersSchema,
    webhook: OrderPointersSchema,
    balance: PointerSchema,
  })
  .partial()
  .strict();

export interface OrderPointers {
  readonly id: string;
  readonly status: string;
  readonly reference: string;
}

export interface BodyMapping {
  readonly order: OrderPointers;
  readonly lookup: OrderPointers;
  readonly webhook: OrderPointers;
  readonly balance: string;
}

const SPEC_ORDER: OrderPointers = { id: "/id", status: "/status", reference: "/reference" };

export const DEFAULT_BODY_MAPPING: BodyMapping = {
  order: SPEC_ORDER,
  lookup: SPEC_ORDER,
  webhook: SPEC_ORDER,
  balance: "/amount",
};

export function parseBodyMapping(value: unknown): { ok: true; mapping: BodyMapping } | { ok: false; error: string } {
  const parsed = BodyMappingFileSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; "),
    };
  }
  const file = parsed.data;
  return {
    ok: true,
    mapping: {
      order: overSpec(file.order),
      lookup: overSpec(file.lookup),
      webhook: overSpec(file.webhook),
      balance: file.balance ?? DEFAULT_BODY_MAPPING.balance,
    },
  };
}

export async function loadBodyMapping(
  file: string,
): Promise<{ ok: true; mapping: BodyMapping } | { ok: false; error: string }> {
  try {
    return parseBodyMapping(JSON.parse(await readFile(file, "utf8")));
  } catch (error) {
    return { ok: false, error: `cannot read ${file}: ${(error as Error).message}` };
  }
}

/** The value at an RFC 6901 pointer, or undefined. */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** An order's id, status and reference as a provider shaped them; absent parts are undefined. */
export function readOrder(
  body: unknown,
  pointers: OrderPointers,
): { id: string | undefined; status: number | undefined; reference: string | undefined } {
  const id = atPointer(body, pointers.id);
  const status = atPointer(body, pointers.status);
  const reference = atPointer(body, pointers.reference);
  return {
    id: typeof id === "string" && id !== "" ? id : undefined,
    status:
      typeof status === "number"
        ? status
        : typeof status === "string" && /^\d+$/.test(status)
          ? Number(status)
          : undefined,
    reference: typeof reference === "string" ? reference : undefined,
  };
}

/** Money as a number or a decimal string ("10.00"), in cents; undefined when it is neither. */
export function readMoneyCents(body: unknown, pointer: string): number | undefined {
  const value = atPointer(body, pointer);
  if (typeof value === "number" && Number.isFinite(value)) return toCents(value);
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return toCents(Number(value));
  return undefined;
}

/** The file's pointers, each falling back to where our spec keeps that field. */
function overSpec(given: z.output<typeof OrderPointersSchema> | undefined): OrderPointers {
  return {
    id: given?.id ?? SPEC_ORDER.id,
    status: given?.status ?? SPEC_ORDER.status,
    reference: given?.reference ?? SPEC_ORDER.reference,
  };
}
