/**
 * Scenario effects on the HTTP side: combine every engine's answer, and turn
 * an `HttpFailure` into what the client sees (a problem with its status, or a
 * dropped connection).
 */
import type { ServerResponse } from "node:http";
import type { ErrorCode } from "../contract/error-codes.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import {
  type HttpFailure,
  NO_EFFECTS,
  type RequestFacts,
  type ResolvedEffects,
  type ScenarioEngine,
} from "../domain/scenario-engine.ts";
import { sendProblem } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";

/** Later engines' fields override earlier ones; `fired` is concatenated. */
function mergeEffects(list: readonly ResolvedEffects[]): ResolvedEffects {
  let merged: ResolvedEffects = NO_EFFECTS;
  for (const effects of list) {
    merged = { ...merged, ...stripUndefined(effects), fired: [...merged.fired, ...effects.fired] };
  }
  return merged;
}

function stripUndefined(effects: ResolvedEffects): Partial<ResolvedEffects> {
  return Object.fromEntries(Object.entries(effects).filter(([, value]) => value !== undefined));
}

export async function evaluateAll(engines: readonly ScenarioEngine[], facts: RequestFacts): Promise<ResolvedEffects> {
  if (engines.length === 0) return NO_EFFECTS;
  // One engine (the usual case) needs no merge: its answer is the merged answer, read field by field.
  if (engines.length === 1) return (engines[0] as ScenarioEngine).evaluate(facts);
  const results: ResolvedEffects[] = [];
  for (const engine of engines) results.push(await engine.evaluate(facts));
  return mergeEffects(results);
}

const FAILURE_CODES: Record<429 | 500 | 502 | 503, ErrorCode> = {
  429: "rate_limited",
  500: "internal_error",
  502: "upstream_error",
  503: "service_unavailable",
};

/** Answers with an injected failure. `committed` says whether the order exists regardless. */
export function writeFailure(
  res: ServerResponse,
  failure: HttpFailure,
  committed: boolean,
  dialect: DialectRenderer,
): void {
  switch (failure.kind) {
    case "drop":
      res.socket?.destroy();
      res.destroy();
      return;
    case "error": {
      const detail = committed
        ? "Injected failure after the order was committed; retry with the same idempotency key."
        : "Injected failure; nothing was committed.";
      const headers: Record<string, string> =
        failure.retryAfterSeconds === undefined ? {} : { "Retry-After": String(failure.retryAfterSeconds) };
      sendProblem(res, new HttpProblem(FAILURE_CODES[failure.status], detail, { headers }), dialect);
      return;
    }
    default: {
      const unreachable: never = failure;
      throw new Error(`unknown failure ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Waits on real timers: latency is what the client experiences, whatever the simulator clock does. */
export function realDelay(ms: number | undefined): Promise<void> {
  if (ms === undefined || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
