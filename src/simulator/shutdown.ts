/**
 * Closing a simulator: what it stops, waits for, counts and saves, and the
 * report of what was left undone. It sits apart from `createSimulator`
 * because it runs at the other end of a simulator's life, over the parts the
 * wiring made, and a reader of either needs only the other's names.
 */
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { Store } from "../domain/ports.ts";
import type { Backend } from "./backend.ts";
import type { createHttpServer } from "./http-server.ts";
import type { LeftPending, SimulatorPlugin } from "../domain/plugin-port.ts";
import { captureState, type Run, type StateHolders, writeStateFile } from "./state-file.ts";

/** How long `close()` lets work in flight finish when not told: requests only (see `CloseOptions`). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export interface CloseOptions {
  /**
   * How long requests and webhook attempts in flight may take to finish, ms;
   * then connections still open are destroyed and attempts still out are
   * recorded as failed (`shutdown`). Without it, requests get 10 s and webhook
   * attempts are aborted at once, so a test never waits on its receivers.
   */
  readonly timeoutMs?: number | undefined;
}

/** What a closed simulator left undone. */
export interface ShutdownReport {
  /** Requests still unanswered at the deadline: their connections were destroyed. */
  readonly requestsCutOff: number;
  /** Orders still pending: their next lifecycle step will not run (unless saved to a state file). */
  readonly pendingOrders: number;
  /** What the plugins left, e.g. `{ "undelivered webhooks": 2, "webhook attempts cut off": 1 }`. */
  readonly left: LeftPending;
  /** The state file written, with what was left, to be taken up at the next start. */
  readonly savedTo?: string;
}

/** What closing a simulator stops, waits for, counts and saves. */
interface Closing {
  readonly backend: Backend;
  readonly plugins: readonly SimulatorPlugin[];
  readonly server: ReturnType<typeof createHttpServer>;
  readonly store: Store;
  readonly statusTable: StatusTable;
  readonly stateFile: string | undefined;
  readonly run: Run;
  readonly holders: StateHolders | undefined;
}

/**
 * A simulator's `shutdown`: the first call closes it, and later calls
 * return the first call's result, whatever timeout they ask for.
 */
export function shutdownOnce(closing: Closing): (options?: CloseOptions) => Promise<ShutdownReport> {
  let closed: Promise<ShutdownReport> | undefined;
  return (options = {}) => {
    closed ??= closeOnce(closing, options.timeoutMs);
    return closed;
  };
}

/**
 * Stops timers and accepting, finishes in-flight requests and then the
 * plugins' work within `timeoutMs`, saves the state file when there is one,
 * and reports what was left. Runs once per simulator (see `shutdownOnce`).
 */
async function closeOnce(closing: Closing, timeoutMs: number | undefined): Promise<ShutdownReport> {
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
    throw new RangeError("close({ timeoutMs }) needs a finite timeoutMs >= 0");
  }
  const { backend, plugins, stateFile, holders } = closing;
  // No more shared jobs are claimed; those running here (webhook attempts hold theirs) end as the plugins close.
  const backendStopped = backend.stop();
  for (const plugin of plugins) plugin.closing?.();
  const deadline = AbortSignal.timeout(timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
  const { requestsCutOff } = await closing.server.close(deadline);
  const left: Record<string, number> = {};
  for (const plugin of plugins) {
    const leftByPlugin = await plugin.close?.(timeoutMs === undefined ? undefined : deadline);
    for (const [what, count] of Object.entries(leftByPlugin ?? {})) left[what] = (left[what] ?? 0) + count;
  }
  await backendStopped;
  let pendingOrders = 0;
  for (const [status, count] of await closing.store.countOrdersByStatus()) {
    if (!isFinalStatus(closing.statusTable, status)) pendingOrders += count;
  }
  await backend.close();
  if (stateFile === undefined || holders === undefined) return { requestsCutOff, pendingOrders, left };
  await writeStateFile(stateFile, await captureState(closing.run, holders));
  return { requestsCutOff, pendingOrders, left, savedTo: stateFile };
}
