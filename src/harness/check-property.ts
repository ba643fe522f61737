/**
 * Checking one property: search for a failure without shrinking, replay it
 * once, and only when the replay reproduces it shrink it — within the shrink
 * time cap — and confirm the shrunk case. A failure whose outcome was random
 * (the replay passed) is reported as observed, with its steps and curl lines,
 * instead of being shrunk for minutes. Then the search goes on with the
 * failed check off, so one defect never hides another.
 */
import fc from "fast-check";
import { type Checker, createChecker, isCheckFailure } from "./checker.ts";
import { CHECK_NAMES, type CheckName } from "./checks.ts";
import type { ContractSettings } from "./contract-settings.ts";
import type { HarnessContext } from "./harness-context.ts";
import type { Exchange } from "./http-client.ts";
import { type ContractProperty, currentTranscript, type RunRecorder } from "./property.ts";
import { createLaneSet, laneRuns, laneSeed } from "./lanes.ts";
import { buildReplayCommand, formatReplayPath } from "./replay.ts";
import type { FailureDiff } from "./failure-evidence.ts";
import type { CheckFailureReport, FailureStep, PropertyReport } from "./report.ts";
import { createTranscript, type Transcript, toCurl, toExchangeRecord } from "./transcript.ts";

export interface CheckPropertyInput {
  readonly property: ContractProperty;
  readonly selected: ReadonlySet<CheckName>;
  readonly failed: ReadonlySet<CheckName>;
  readonly seed: number;
  readonly runs: number;
  readonly replay: { readonly path: string; readonly replayPath: string | undefined } | undefined;
  readonly maxFailures: number;
  readonly harness: HarnessContext;
  readonly settings: ContractSettings;
  readonly onFailure: (failure: CheckFailureReport) => void;
  readonly onExercised: (checker: Checker) => void;
  /** Wall time spent per phase (search, replay, shrink), ms. */
  readonly onPhase: (phase: "search" | "replay" | "shrink", ms: number) => void;
}

interface Found {
  /** The seed of the search (its lane's) that found it: its path is a path of that seed. */
  readonly seed: number;
  readonly check: CheckName;
  readonly message: string;
  readonly path: string;
  readonly replayPath: string | undefined;
  readonly diff: FailureDiff | undefined;
}

/**
 * The search for a failure, in lanes (lanes.ts): each lane a fast-check
 * search of its own seed and share of the runs, all side by side, none
 * shrinking. The failure reported is that of the first lane (by index) that
 * failed, with its seed: replayed with that seed and path, it runs alone,
 * exactly as it ran.
 */

interface LaneOutcome<Recorder extends RunRecorder> {
  readonly result: fc.RunDetails<unknown>;
  /** The seed of the lane the result is from: a replay of its path needs it. */
  readonly seed: number;
  readonly recorder: Recorder;
}

interface LaneSearchInput<Recorder extends RunRecorder> {
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

async function searchInLanes<Recorder extends RunRecorder>(
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

/** Checks one property until it passes with every check that has not failed yet. */
export async function checkProperty(input: CheckPropertyInput): Promise<PropertyReport> {
  const { property, harness, settings } = input;
  const base = { name: property.name, summary: property.summary };
  let runsSoFar = 0;
  let anyFailure = false;
  for (let attempt = 0; attempt <= CHECK_NAMES.length; attempt++) {
    const enabled = new Set(property.checks.filter((c) => input.selected.has(c) && !input.failed.has(c)));
    if (enabled.size === 0) {
      return anyFailure
        ? { ...base, runs: runsSoFar, status: "failed" }
        : { ...base, runs: runsSoFar, status: "skipped", reason: "none of its checks is selected" };
    }
    const checker = createChecker(enabled);
    // Each attempt is a fresh search of its fixed cases plus the random runs; replays while shrinking
    // also pass through the recorder, so the counter is per attempt and held at its total.
    const total = input.runs + (property.examples?.length ?? 0);
    let runsThisAttempt = 0;
    const onRun = () => {
      runsSoFar++;
      runsThisAttempt++;
      settings.onProgress?.({
        property: property.name,
        run: Math.min(runsThisAttempt, total),
        runs: total,
        phase: input.replay !== undefined ? "replay" : attempt === 0 ? "search" : "shrink-or-retry",
      });
    };
    const searchStarted = Date.now();
    // No shrinking here: a failure is replayed first, and shrunk only when it reproduces.
    const { result, seed, recorder } = await searchInLanes({
      property,
      checker,
      seed: input.seed,
      // The fixed cases come first, then as many random runs as asked for.
      runs: total,
      parameters: { ...examplesOf(property), ...(input.replay === undefined ? {} : { path: input.replay.path }) },
      replayPath: input.replay?.replayPath,
      recorder: () => createRecorder(harness, onRun),
    });
    input.onPhase("search", Date.now() - searchStarted);
    input.onExercised(checker);
    if (!result.failed) {
      return anyFailure
        ? { ...base, runs: runsSoFar, status: "failed" }
        : { ...base, runs: runsSoFar, status: "passed" };
    }
    const error = result.errorInstance;
    if (!isCheckFailure(error)) {
      const message = error instanceof Error ? error.message : String(result.errorInstance ?? "unknown failure");
      if (/pre-?condition/i.test(message) || result.numSkips > 0) {
        return {
          ...base,
          runs: runsSoFar,
          status: anyFailure ? "failed" : "skipped",
          reason: "the budget left no room for its requests",
        };
      }
      if (anyFailure) {
        // With the failed check off, the target's defect can leave nothing sensible to judge (e.g. an order without id).
        return { ...base, runs: runsSoFar, status: "failed", reason: `stopped after the failure(s) above: ${message}` };
      }
      return { ...base, runs: runsSoFar, status: "error", reason: message };
    }
    anyFailure = true;
    const first: Found = {
      seed,
      check: error.check,
      message: error.message,
      path: result.counterexamplePath ?? "",
      replayPath: input.replay?.replayPath ?? property.replayPathOf?.((result.counterexample ?? []) as unknown[]),
      diff: error.diff,
    };
    const observed = recorder.lastFailed();
    input.onFailure(await pinDown(input, first, observed, { enabled, recorder }));
    if (input.replay !== undefined || input.failed.size >= input.maxFailures) {
      return { ...base, runs: runsSoFar, status: "failed" };
    }
  }
  return { ...base, runs: runsSoFar, status: "failed" };
}

/** Replay, then (when it reproduced) shrink within the cap and confirm: the failure as reported. */
async function pinDown(
  input: CheckPropertyInput,
  first: Found,
  observed: Transcript,
  search: { readonly enabled: ReadonlySet<CheckName>; readonly recorder: RunRecorder & { lastFailed(): Transcript } },
): Promise<CheckFailureReport> {
  const { recorder } = search;
  let replayStarted = Date.now();
  const replay = await confirm(input, first, observed);
  input.onPhase("replay", Date.now() - replayStarted);
  if (!replay.reproduced || input.replay !== undefined) {
    return report(input, { ...first, message: replay.message, diff: replay.diff }, replay.transcript, {
      reproduced: replay.reproduced,
      observed: !replay.reproduced,
      shrinkMs: 0,
    });
  }
  const shrinkMs = input.settings.shrinkTimeMs;
  const shrinkStarted = Date.now();
  const checker = createChecker(search.enabled);
  // Past the cap, fast-check stops and keeps the smallest failure found so far.
  const shrunk = await runFrom(input, first, checker, recorder, { interruptAfterTimeLimit: shrinkMs });
  const spent = Date.now() - shrinkStarted;
  input.onPhase("shrink", spent);
  const error = shrunk.errorInstance;
  const best: Found =
    shrunk.failed && isCheckFailure(error) && shrunk.counterexamplePath !== null
      ? {
          seed: first.seed,
          check: error.check,
          message: error.message,
          path: shrunk.counterexamplePath,
          replayPath: input.property.replayPathOf?.((shrunk.counterexample ?? []) as unknown[]),
          diff: error.diff,
        }
      : first;
  replayStarted = Date.now();
  const confirmed = best === first ? replay : await confirm(input, best, recorder.lastFailed());
  input.onPhase("replay", Date.now() - replayStarted);
  // A shrunk case that did not reproduce: the first failure, which did, is the report.
  const chosen = confirmed.reproduced ? best : first;
  const evidence = confirmed.reproduced ? confirmed : replay;
  return report(input, { ...chosen, message: evidence.message, diff: evidence.diff }, evidence.transcript, {
    reproduced: true,
    observed: false,
    shrinkMs: spent,
  });
}

function report(
  input: CheckPropertyInput,
  found: Found,
  transcript: Transcript,
  how: { readonly reproduced: boolean; readonly observed: boolean; readonly shrinkMs: number },
): CheckFailureReport {
  const { harness, property, settings } = input;
  const path = formatReplayPath(found.path, found.replayPath);
  return {
    check: found.check,
    property: property.name,
    message: found.message.replace(/^\[[a-z_]+\] /, ""),
    seed: found.seed,
    path,
    steps: stepsOf(harness, transcript),
    replay: buildReplayCommand(settings, { check: found.check, property: property.name, seed: found.seed, path }),
    reproduced: how.reproduced,
    observed: how.observed,
    shrinkMs: how.shrinkMs,
    ...(found.diff === undefined ? {} : { diff: found.diff }),
  };
}

/** A failure's steps as the reports show them: each request as curl and as an exchange, secrets hidden. */
export function stepsOf(harness: HarnessContext, transcript: Transcript): FailureStep[] {
  return transcript.steps().map((step) => ({
    label: step.label,
    curl: step.exchanges.map((exchange) =>
      toCurl(exchange.request, { baseUrl: harness.target.displayUrl, secrets: harness.target.secrets }),
    ),
    exchanges: step.exchanges.map((exchange) => toExchangeRecord(exchange, { secrets: harness.target.secrets })),
  }));
}

/** Replays a failure with only its check on: same failure → reproduced; its transcript is the report's. */
async function confirm(
  input: CheckPropertyInput,
  found: Found,
  fallback: Transcript,
): Promise<{ reproduced: boolean; transcript: Transcript; message: string; diff: FailureDiff | undefined }> {
  const checker: Checker = createChecker(new Set([found.check]));
  const recorder = createRecorder(input.harness, () => {});
  try {
    const result = await runFrom(input, found, checker, recorder, { endOnFailure: true });
    const error = result.errorInstance;
    const same = result.failed && isCheckFailure(error) && error.check === found.check;
    // Message and diff go with the transcript they came from (references differ from run to run).
    return same
      ? { reproduced: true, transcript: recorder.lastFailed(), message: error.message, diff: error.diff }
      : { reproduced: false, transcript: fallback, message: found.message, diff: found.diff };
  } catch {
    return { reproduced: false, transcript: fallback, message: found.message, diff: found.diff };
  }
}

function createRecorder(harness: HarnessContext, onRun: () => void): RunRecorder & { lastFailed(): Transcript } {
  let current = createTranscript();
  let failedRun = current;
  return {
    startRun() {
      onRun();
      current = createTranscript();
      const transcript = current;
      // Runs side by side: each exchange goes to the transcript of the run that sent it.
      const record = (exchange: Exchange) => (currentTranscript() ?? transcript).record(exchange);
      harness.faultClient.onExchange(record);
      harness.directClient.onExchange(record);
      return transcript;
    },
    failRun() {
      failedRun = current;
    },
    lastFailed: () => failedRun,
  };
}

/** Runs the property from a failure's path: to replay it (endOnFailure) or to shrink it. */
function runFrom(
  input: CheckPropertyInput,
  found: Found,
  checker: Checker,
  recorder: RunRecorder,
  parameters: { readonly endOnFailure?: boolean; readonly interruptAfterTimeLimit?: number },
) {
  const lanes = createLaneSet(1);
  return fc.check(input.property.build({ checker, recorder, replayPath: found.replayPath, lanes }), {
    seed: found.seed,
    path: found.path,
    numRuns: 1,
    ...examplesOf(input.property),
    ...parameters,
  });
}

/** fast-check's `examples`: a path counts them, so every call that takes a path must pass the same ones. */
function examplesOf(property: ContractProperty): { examples?: unknown[] } {
  return property.examples === undefined ? {} : { examples: property.examples.map((example) => [...example]) };
}
