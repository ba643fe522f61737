/**
 * Paging of the admin listings (`/_sim/orders`, `/_sim/deliveries`,
 * `/_sim/journal`, `/_sim/customers`): one set of query parameters and one
 * `next_cursor`, declared once so every listing documents and validates
 * them alike.
 */
import { z } from "zod";
import { wellFormed } from "./well-formed.ts";

export const DEFAULT_PAGE_LIMIT = 100;
const MAX_PAGE_LIMIT = 1_000;

const param = <S extends z.ZodType>(schema: S, description: string, example: unknown) =>
  schema.optional().meta({ param: { description, required: false, example } });

const UNIX_MS = z.coerce.number().int().min(0);

/** The query parameters every listing pages with. */
export const PAGE_QUERY_SHAPE = {
  limit: param(
    z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT),
    `Items per page, 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).`,
    DEFAULT_PAGE_LIMIT,
  ),
  cursor: param(
    z.string().regex(/^[0-9a-z]{1,11}$/, "must be a next_cursor of this listing"),
    "Where the page starts: the `next_cursor` of the previous page (opaque).",
    "2s",
  ),
} as const;

/** Filters by creation time, for listings whose items have one. */
export const TIME_QUERY_SHAPE = {
  from: param(UNIX_MS, "Only items created at or after this simulator time (Unix ms).", 1_767_225_600_000),
  to: param(UNIX_MS, "Only items created at or before this simulator time (Unix ms).", 1_767_229_200_000),
} as const;

export const REFERENCE_PREFIX_PARAM = param(
  wellFormed(z.string().min(1).max(100)),
  "Only items whose reference starts with this text.",
  "order-",
);

export const NextCursorSchema = z
  .string()
  .nullable()
  .meta({
    description:
      "Pass as `cursor` for the next page; null when there is no more. A page may hold fewer than `limit` " +
      "items (even none) while this is not null: the simulator bounds the work of one request.",
  });

export const PAGING_DESCRIPTION =
  "Paged, oldest first: `limit` items (default 100, at most 1,000) from `cursor`; follow `next_cursor` until it is null.";
