/**
 * The mapping file of earlier releases (`--mapping FILE`, deprecated): JSON
 * pointers to where a provider keeps an order's id, status and reference and
 * the balance. It is read as the provider profile it is a part of, so every
 * read still goes through one compiled profile.
 *
 *   { "order": { "id": "/data/id", "status": "/data/status", "reference": "/data/reference" },
 *     "lookup": { … }, "webhook": { … }, "balance": "/data/amount" }
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";

export const MAPPING_DEPRECATION =
  "--mapping is deprecated and will be removed: write a provider profile and pass it with --provider (see docs/provider-profiles.md)";

const PointerSchema = z.string().regex(/^(\/([^~/]|~[01])*)*$/, "must be a JSON pointer such as /data/id");
const OrderPointersSchema = z
  .strictObject({ id: PointerSchema, status: PointerSchema, reference: PointerSchema })
  .partial();

const MappingFileSchema = z
  .strictObject({
    order: OrderPointersSchema,
    lookup: OrderPointersSchema,
    webhook: OrderPointersSchema,
    balance: PointerSchema,
  })
  .partial();

export type MappingResult = { ok: true; profile: ProviderProfile } | { ok: false; error: string };

/** A mapping file's content as a provider profile (the sections it cannot say keep our spec's). */
export function mappingToProfile(value: unknown): MappingResult {
  const parsed = MappingFileSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; "),
    };
  }
  const { order, lookup, webhook, balance } = parsed.data;
  return {
    ok: true,
    profile: {
      profile: 1,
      name: "mapping file",
      bodies: {
        ...(order === undefined ? {} : { order }),
        ...(lookup === undefined ? {} : { lookup }),
        ...(webhook === undefined ? {} : { webhook }),
        ...(balance === undefined ? {} : { balance: { amount: balance } }),
      },
    },
  };
}

export async function loadMappingFile(file: string): Promise<MappingResult> {
  try {
    return mappingToProfile(JSON.parse(await readFile(file, "utf8")));
  } catch (error) {
    return { ok: false, error: `cannot read ${file}: ${(error as Error).message}` };
  }
}
