/**
 * Per-request state shared along the pipeline (request id, authenticated
 * customer, idempotency outcome, scenario rules that fired) and the first
 * two pipeline steps: assign a request id, and journal the request when its
 * response ends. The journal entry is also what the request log prints:
 * its facts are gathered once, at the end, whoever reads them.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import type { Clock } from "../domain/ports.ts";
import type { IdempotencyOutcome, Journal, JournalRecord } from "./journal.ts";
import { redactUrl } from "./redact-url.ts";

export interface RequestState {
  readonly requestId: string;
  customerId: string | null;
  fired: readonly string[];
  idempotency: IdempotencyOutcome | undefined;
}

/** Told of every request once its response has ended (or its connection dropped). */
export type RequestListener = (request: JournalRecord) => void;

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
export function startRequest(
  clock: Clock,
  journal: Journal,
  onRequest?: RequestListener,
): (req: Request, res: Response) => void {
  return (req, res) => {
    const state: RequestState = { requestId: randomUUID(), customerId: null, fired: [], idempotency: undefined };
    res.locals.sim = state;
    res.setHeader("X-Request-Id", state.requestId);
    const at = clock.now();
    const wallStart = Date.now();
    const started = performance.now();
    // One listener: "close" follows "finish" for an answered request, and comes alone for a dropped one.
    // `on` rather than `once`: "close" is emitted once, and `once` would wrap the listener in another closure.
    res.on("close", () => {
      const record: JournalRecord = {
        requestId: state.requestId,
        at,
        wallMs: wallStart,
        method: req.method,
        path: redactUrl(req.originalUrl),
        // Ended means answered, however the response is carried (a socket, or an in-process injection);
        // a dropped one is destroyed without ending.
        status: res.writableEnded ? res.statusCode : 0,
        customerId: state.customerId,
        fired: state.fired,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        ...(state.idempotency === undefined ? {} : { idempotency: state.idempotency }),
      };
      journal.record(record);
      onRequest?.(record);
    });
  };
}
