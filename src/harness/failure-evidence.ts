/**
 * What a failure shows besides its message: each request with the response
 * that came back, and the two bodies a check compared. A leaf module, so the
 * checker and the transcript can produce them without importing the report.
 */

/** One request a step made and what came back, secrets replaced by shell variables, bodies cut short. */
export interface ExchangeRecord {
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
    /** The harness proxy's fault on this request, described. */
    readonly fault?: string;
  };
  readonly response:
    | {
        readonly kind: "response";
        readonly status: number;
        readonly headers: Readonly<Record<string, string>>;
        readonly body: string;
      }
    | { readonly kind: "network_error"; readonly code: string; readonly message: string };
  /** When it was sent (epoch ms) and how long the answer took; absent from a report assembled by hand. */
  readonly startedAt?: number;
  readonly durationMs?: number;
}

/** Two bodies that should have agreed, e.g. a webhook and the lookup of its order. */
export interface FailureDiff {
  /** What the expected side is, e.g. "GET /v1/airtime/REF". */
  readonly expectedLabel: string;
  readonly actualLabel: string;
  readonly expected: unknown;
  readonly actual: unknown;
}
