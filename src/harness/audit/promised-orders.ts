/**
 * The promises a run leaves behind: every order the model placed, with its
 * key, its payload and the last status the run saw. They are judged again
 * after the run — by the late audit, seconds later, and by `--recheck`, a
 * day later — because a final status that changes afterwards, or a key the
 * target forgets early, shows only with time.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import type { KeyLocation } from "../api.ts";
import { HarnessError } from "../checker.ts";

export interface PromisedOrder {
  /** The customer's token; never written to a saved run. */
  readonly token: string;
  readonly reference: string;
  readonly key: string;
  readonly keyIn: KeyLocation;
  /** The body as sent (a replay sends it again, byte for byte the same fields). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly amountCents: number;
  /** The id the target gave the order, when the run learned it. */
  readonly id: string | undefined;
  /** The last status the run saw, and whether it was final. */
  readonly status: number | undefined;
  readonly final: boolean;
  /** Wall time (ms since the epoch) when the run last saw it: it was final no later than this. */
  readonly seenAt: number;
}

export interface PromisedOrders {
  add(order: PromisedOrder): void;
  all(): readonly PromisedOrder[];
}

export function createPromisedOrders(): PromisedOrders {
  const orders: PromisedOrder[] = [];
  return {
    add(order) {
      orders.push(order);
    },
    all: () => orders,
  };
}

/**
 * The 24-hour promise: `contract --save-run FILE` writes the orders the run
 * placed with its own token — reference, key, payload, id and last status,
 * never the token — and `contract --recheck FILE`, an hour or a day later
 * with the same target and token flags, replays every key and re-reads
 * every order. The file is versioned and read through its schema.
 */

const SavedOrderSchema = z.object({
  reference: z.string().min(1),
  key: z.string().min(1),
  keyIn: z.enum(["header", "body", "none"]),
  payload: z.record(z.string(), z.unknown()),
  amountCents: z.number().int().nonnegative(),
  id: z.string().optional(),
  status: z.number().int().optional(),
  final: z.boolean(),
  /** When the run last saw the order (ISO 8601). */
  seenAt: z.iso.datetime(),
});

export const SavedRunSchema = z.object({
  savedRun: z.literal(1),
  /** The target the run judged, so a recheck against another is refused. */
  target: z.string(),
  savedAt: z.iso.datetime(),
  orders: z.array(SavedOrderSchema),
});

export type SavedRun = z.infer<typeof SavedRunSchema>;

/** Writes the orders placed under `token` (fresh customers' orders cannot be rechecked: their tokens are not kept). */
export async function saveRun(
  file: string,
  target: string,
  token: string,
  orders: readonly PromisedOrder[],
): Promise<number> {
  const mine = orders.filter((order) => order.token === token);
  const saved: SavedRun = {
    savedRun: 1,
    target,
    savedAt: new Date().toISOString(),
    orders: mine.map(({ token: _token, seenAt, id, status, ...order }) => ({
      ...order,
      ...(id === undefined ? {} : { id }),
      ...(status === undefined ? {} : { status }),
      seenAt: new Date(seenAt).toISOString(),
    })),
  };
  await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`);
  return mine.length;
}

/** Reads a saved run for `target`, its orders under `token` again; a clear HarnessError for a bad file. */
export async function loadSavedRun(file: string, target: string, token: string): Promise<PromisedOrder[]> {
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    throw new HarnessError(`--recheck ${file}: ${(error as Error).message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HarnessError(`--recheck ${file}: not JSON`);
  }
  const parsed = SavedRunSchema.safeParse(json);
  if (!parsed.success) {
    throw new HarnessError(
      `--recheck ${file}: not a saved run (${z.prettifyError(parsed.error).replaceAll("\n", "; ")})`,
    );
  }
  if (parsed.data.target !== target) {
    throw new HarnessError(`--recheck ${file}: saved against ${parsed.data.target}, not ${target}`);
  }
  return parsed.data.orders.map(({ seenAt, id, status, ...order }) => ({
    ...order,
    token,
    id,
    status,
    seenAt: Date.parse(seenAt),
  }));
}
