/**
 * The search for a failure, in lanes (lanes.ts): each lane a fast-check
 * search of its own seed and share of the runs, all side by side, none
 * shrinking. The failure reported is that of the first lane (by index) that
 * failed, with its seed: replayed with that seed and path, it runs alone,
 * exactly as it ran.
 */
import fc from "fast-check";
import type { Checker } from "./checker.ts";
import { createLaneSet, laneRuns, laneSeed } from "./lanes.ts";
import type { ContractProperty, RunRecorder } from "./property.ts";

export interface LaneOutcome<Recorder extends RunRecorder> {
  readonly result: fc.RunDetails<unknown>;
  /** The seed of the lane the result is from: a replay of its path needs it. */
  readonly seed: number;
  readonly recorder: Recorder;
}

export interface LaneSearchInput<Recorder extends RunRecorder> {
  readonly property: ContractProperty;
  readonly checker: Checker;
  readonly seed: number;
  readonly runs: number;
  /** fast-check's parameters every lane shares (examples, a replay's path); numRuns counts the examples. */
  readonly parameters: fc.Parameters<unknown>;
  readonly replayPath: string | undefined;
  /** A recorder per lane: each lane's runs follow one another, and its failed run is its own. */
  readonly recorder: () => Recorder;
}

export async function searchInLanes<Recorder extends RunRecorder>(
  input: LaneSearchInput<Recorder>,
): Promise<LaneOutcome<Recorder>> {
  // A replay runs its one lane; fixed examples count in every path, so a property with them keeps one lane.
  const alone = input.parameters.path !== undefined || input.property.examples !== undefined;
  const count = alone ? 1 : Math.max(1, Math.min(input.property.lanes ?? 1, input.runs));
  const lanes = createLaneSet(count);
  const outcomes = await Promise.all(
    laneRuns(input.runs, count).map(async (runs, lane) => {
      const seed = laneSeed(input.seed, lane);
      const recorder = input.recorder();
      try {
        const property = input.property.build({
          checker: input.checker,
          recorder,
          replayPath: input.replayPath,
          lanes,
        });
        const result = await fc.check(property, { ...input.parameters, seed, numRuns: runs, endOnFailure: true });
        return { result, seed, recorder };
      } finally {
        lanes.leave();
      }
    }),
  );
  return outcomes.find((outcome) => outcome.result.failed) ?? (outcomes[0] as LaneOutcome<Recorder>);
}
