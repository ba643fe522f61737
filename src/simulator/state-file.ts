/**
 * `--state-file`: the embedded simulator's whole state as one versioned JSON
 * file, written at shutdown and loaded at start, so a graceful restart loses
 * nothing. The file is written to a temporary name beside it and renamed, so
 * a crash while saving leaves the previous file whole. On load the file is
 * checked with a zod schema first: a file that is unreadable, corrupt or of
 * another version is refused whole, never half-loaded.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { MemoryStore, MemoryStoreState } from "../store/memory-store.ts";
import type { TimeKeeper, TimeKeeperState } from "../time/time-keeper.ts";
import type { SimulatorPlugin } from "../domain/plugin-port.ts";

export const STATE_FILE_VERSION = 1;

export interface SimulatorState {
  readonly version: typeof STATE_FILE_VERSION;
  /** ISO time of the save, wall clock: for people reading the file. */
  readonly savedAt: string;
  /** The seed the saved run drew from, and how many restarts it has had. */
  readonly seed: number;
  readonly restarts: number;
  readonly clock: TimeKeeperState;
  readonly store: MemoryStoreState;
  /** Each plugin's own saved state, by plugin name. */
  readonly plugins: Readonly<Record<string, unknown>>;
}

/** A state file that cannot be loaded; the message names the file and the cause. */
export class StateFileError extends Error {
  override readonly name = "StateFileError";
}

const WalletSchema = z.object({ shortcode: z.string().nullable(), balanceCents: z.int().min(0), currency: z.string() });

const CustomerSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  tokens: z.array(z.string()),
  apiKey: z.string(),
  wallets: z.array(WalletSchema),
});

const OrderSchema = z.looseObject({
  id: z.string(),
  customerId: z.string(),
  reference: z.string(),
  account: z.string(),
  amountCents: z.int().min(0),
  currency: z.string(),
  shortcode: z.string().nullable(),
  status: z.int(),
  message: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  history: z.array(z.object({ status: z.int(), message: z.string(), at: z.number() })).min(1),
});

const StoreSchema = z.object({
  customers: z.array(CustomerSchema),
  orders: z.array(OrderSchema),
  idempotencyKeys: z.array(
    z.object({
      customerId: z.string(),
      key: z.string(),
      fingerprint: z.string(),
      orderId: z.string().optional(),
      expiresAt: z.number(),
    }),
  ),
  evictedOrders: z.array(
    z.object({
      id: z.string(),
      customerId: z.string(),
      reference: z.string(),
      status: z.int(),
      message: z.string(),
      createdAt: z.number(),
      updatedAt: z.number(),
      keptUntil: z.number(),
    }),
  ),
  issuedTokens: z.array(
    z.object({ digest: z.string().regex(/^[0-9a-f]{64}$/), customerId: z.string(), expiresAt: z.number() }),
  ),
});

const StateSchema = z.object({
  version: z.literal(STATE_FILE_VERSION, {
    error: `this simulator reads state files of version ${STATE_FILE_VERSION}`,
  }),
  savedAt: z.string(),
  seed: z.int(),
  restarts: z.int().min(0),
  clock: z.object({
    virtualNow: z.number().nullable(),
    jobs: z.array(z.object({ id: z.string(), type: z.string(), dueAt: z.number(), payload: z.unknown() })),
  }),
  store: StoreSchema,
  plugins: z.record(z.string(), z.unknown()),
});

/**
 * The saved state, or undefined when there is no file yet (the first start).
 * Throws `StateFileError` for a file that exists but cannot be loaded.
 */
export async function readStateFile(path: string): Promise<SimulatorState | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(`state file ${path} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(`state file ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = StateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
    throw new StateFileError(`state file ${path} is not a simulator state${where}: ${issue?.message ?? "invalid"}`);
  }
  // The schema checks every field the simulator reads; records keep any other field as saved.
  return parsed.data as unknown as SimulatorState;
}

/** Writes the state beside `path` and renames it into place. */
export async function writeStateFile(path: string, state: SimulatorState): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(temporary, JSON.stringify(state), "utf8");
  await rename(temporary, path);
}

/**
 * The seed a restored run draws from: a different stream for each restart,
 * so ids drawn after a restart never repeat the ones saved (the same seed
 * would start the same sequence again).
 */
export function restartSeed(seed: number, restarts: number): number {
  return (seed + Math.imul(restarts, 0x9e3779b9)) | 0;
}

/** What a simulator's state is kept in. */
export interface StateHolders {
  readonly store: MemoryStore;
  readonly time: TimeKeeper;
  readonly plugins: readonly SimulatorPlugin[];
}

/** Puts a saved state back: the store first, then the scheduled jobs, then each plugin's part. */
export async function restoreState(saved: SimulatorState, holders: StateHolders): Promise<void> {
  holders.store.importState(saved.store);
  holders.time.importState(saved.clock);
  for (const plugin of holders.plugins) {
    const part = saved.plugins[plugin.name];
    if (plugin.state !== undefined && part !== undefined) await plugin.state.load(part);
  }
}

/** The run a state file goes on with: the seed it draws from, and how many restarts it has had. */
export interface Run {
  readonly seed: number;
  readonly restarts: number;
}

/** The state to save, once requests and webhook attempts have stopped. */
export async function captureState(run: Run, holders: StateHolders): Promise<SimulatorState> {
  const plugins: Record<string, unknown> = {};
  for (const plugin of holders.plugins) {
    if (plugin.state !== undefined) plugins[plugin.name] = await plugin.state.save();
  }
  return {
    version: STATE_FILE_VERSION,
    savedAt: new Date().toISOString(),
    seed: run.seed,
    restarts: run.restarts,
    clock: holders.time.exportState(),
    store: holders.store.exportState(),
    plugins,
  };
}
