/**
 * Per-request state shared along the pipeline (request id, authenticated
 * customer, scenario rules that fired) and the first two pipeline steps:
 * assign a request id, and journal the request when its response ends.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import type { Clock } from "../domain/ports.ts";
import type { Journal } from "./journal.ts";

export interface RequestState {
  readonly requestId: string;
  customerId: string | null;
  fired: readonly string[];
}

export function requestState(res: Response): RequestState {
  return res.locals.sim as RequestState;
}

/** `urn:uuid:…` identifies this occurrence in a problem's `instance`. */
export function problemInstance(res: Response): string {
  const state = res.locals.sim as RequestState | undefined;
  return `urn:uuid:${state?.requestId ?? randomUUID()}`;
}

/**
 * Starts a request: assigns its id, and journals it when its response ends.
 * The first step of the entry pipeline (`entry-pipeline.ts`).
 */
export function startRequest(clock: Clock, journal: Journal): (req: Request, res: Response) => void {
  return (req, res) => {
    const state: RequestState = { requestId: randomUUID(), customerId: null, fired: [] };
    res.locals.sim = state;
    res.setHeader("X-Request-Id", state.requestId);
    const at = clock.now();
    const wallStart = Date.now();
    const started = performance.now();
    // One listener: "close" follows "finish" for an answered request, and comes alone for a dropped one.
    // `on` rather than `once`: "close" is emitted once, and `once` would wrap the listener in another closure.
    res.on("close", () => {
      journal.record({
        requestId: state.requestId,
        at,
        wallMs: wallStart,
        method: req.method,
        path: req.originalUrl,
        status: res.writableFinished ? res.statusCode : 0,
        customerId: state.customerId,
        fired: state.fired,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
    });
  };
}
