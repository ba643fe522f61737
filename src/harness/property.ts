/**
 * A contract property: one fast-check property the runner checks, replays
 * and reports. The runner gives it a checker (which checks are asserted), a
 * recorder (each run's transcript) and, for a replay, the commands' replay
 * path.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type fc from "fast-check";
import type { Checker } from "./checker.ts";
import type { CheckName } from "./checks.ts";
import type { LaneSet } from "./lanes.ts";
import type { Transcript } from "./transcript.ts";

export const PROPERTY_NAMES = ["model", "negative-input", "key-length", "auth", "status-codes", "isolation"] as const;
export type PropertyName = (typeof PROPERTY_NAMES)[number];

export interface RunRecorder {
  /** Starts a run: a fresh transcript, wired to the HTTP clients. */
  startRun(): Transcript;
  /** Marks the current run as failed; its transcript is the counterexample's. */
  failRun(): void;
}

/** A property whose generated values only fast-check looks into. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- property parameter tuples are invariant; the runner never reads them
export type AnyAsyncProperty = fc.IAsyncProperty<any>;

export interface PropertyEnv {
  readonly checker: Checker;
  readonly recorder: RunRecorder;
  /** The replay path of fast-check's commands, when replaying a model run. */
  readonly replayPath: string | undefined;
  /** The lanes this search runs in (one for a replay or a shrink). */
  readonly lanes: LaneSet;
}

export interface ContractProperty {
  readonly name: PropertyName;
  readonly summary: string;
  /** The checks this property can exercise against this target. */
  readonly checks: readonly CheckName[];
  /** How many independent searches may run side by side (lanes.ts); 1 when absent. */
  readonly lanes?: number;
  build(env: PropertyEnv): AnyAsyncProperty;
  /**
   * Fixed cases (argument tuples) run once in every contract run, before the
   * random ones: what is finite is enumerated, not left to chance.
   */
  readonly examples?: readonly (readonly unknown[])[];
  /** The commands' replay path inside a counterexample (model runs only). */
  replayPathOf?(counterexample: readonly unknown[]): string | undefined;
}

/** The transcript of the run whose code is running: runs side by side each record their own exchanges. */
const runningTranscript = new AsyncLocalStorage<Transcript>();

/** The transcript of the recorded run the caller is part of, if any. */
export function currentTranscript(): Transcript | undefined {
  return runningTranscript.getStore();
}

/** Runs `body` as one recorded run: a failure marks the transcript as the counterexample's. */
export async function recordRun(recorder: RunRecorder, body: (transcript: Transcript) => Promise<void>): Promise<void> {
  const transcript = recorder.startRun();
  try {
    await runningTranscript.run(transcript, () => body(transcript));
  } catch (error) {
    recorder.failRun();
    throw error;
  }
}

/** The conformance checks every response is judged by. */
export const CONFORMANCE_CHECKS: readonly CheckName[] = [
  "never_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
];
