/**
 * The lifecycle timing of one model run. Where the harness can both know
 * and set it — a simulator with admin powers on a virtual clock and a known
 * timing — runs draw it: mostly the target's own, sometimes zero (every
 * order final before its answer) or one millisecond (final at the first
 * tick). A run at another timing activates, for its fresh customer only, a
 * scenario whose one path step is that delay; the simulator's own timing
 * stays as it is for every other customer.
 */
import fc from "fast-check";
import { SUCCESS_STATUS } from "../contract/status-codes.ts";
import type { AdminClient } from "./admin-client.ts";
import type { Transcript } from "./transcript.ts";

/** The timings a run may take besides the target's own, ms. */
const OTHER_TIMINGS_MS = [0, 1] as const;

/** The timing of each run: the target's own (undefined when unknown or not settable), or another one. */
export function runTimingArbitrary(targetMs: number | undefined, settable: boolean): fc.Arbitrary<number | undefined> {
  if (targetMs === undefined || !settable) return fc.constant(targetMs);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(targetMs) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_TIMINGS_MS) },
  );
}

/**
 * Gives `customerId`'s orders the run's timing, when it is not the target's
 * own: a scenario named after the delay, loaded (again: loading replaces)
 * and activated for the customer.
 */
export async function applyRunTiming(
  admin: AdminClient | undefined,
  customerId: string | undefined,
  timing: { readonly runMs: number | undefined; readonly targetMs: number | undefined },
  transcript: Transcript,
): Promise<void> {
  const { runMs, targetMs } = timing;
  if (admin === undefined || customerId === undefined || runMs === undefined || runMs === targetMs) return;
  const name = `harness-timing-${runMs}ms`;
  transcript.step(`this run's orders become final ${runMs} ms after placement (scenario ${name})`);
  await admin.loadScenario({
    name,
    description: `Every order of the customers it is active for becomes final ${runMs} ms after placement.`,
    rules: [{ name: "final-after", effects: { path: [{ status: SUCCESS_STATUS, after: `${runMs}ms` }] } }],
  });
  await admin.activateScenario(name, customerId);
}
