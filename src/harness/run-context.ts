/**
 * The real side of a model-based run: the API as the harness calls it, the
 * checker, this run's customer and the powers the target grants.
 */
import type { AdminClient } from "./admin-client.ts";
import type { PublicApi } from "./api.ts";
import type { LedgerEntry } from "./audit/ledger.ts";
import type { Timings } from "./audit/timings.ts";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import type { Profile } from "./profiles.ts";
import type { Checker } from "./checker.ts";
import type { Transcript } from "./transcript.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";

export interface RunTimeouts {
  /** How long an order may take to become final before webhook checks give up on it (wall ms, real clock). */
  readonly finalMs: number;
  /** How long to wait for a webhook after the order is final (wall ms). */
  readonly webhookMs: number;
  /** Interval between lookups while polling for a final status (wall ms). */
  readonly pollMs: number;
  /** Longest single wait of an "advance time" step against a real clock (wall ms). */
  readonly maxWaitMs: number;
}

export interface TargetClock {
  readonly mode: "virtual" | "real";
  /** Virtual: advances the target's clock. Real: waits (capped). Resolves to the ms that passed. */
  advance(ms: number): Promise<number>;
}

export interface RunContext {
  readonly api: PublicApi;
  readonly checker: Checker;
  /** This run's customer token. */
  readonly token: string;
  /** This run's customer id, when the harness created it (admin powers). */
  readonly customerId: string | undefined;
  /** Unique per run: references and keys start with it. */
  readonly prefix: string;
  readonly transcript: Transcript;
  readonly clock: TargetClock;
  readonly admin: AdminClient | undefined;
  readonly receiver: WebhookReceiver | undefined;
  readonly timeouts: RunTimeouts;
  readonly timings: Timings;
  readonly profile: Profile;
  /** The provider profile, compiled: every body is read through it. */
  readonly provider: CompiledProfile;
  /** Earlier runs' orders on this account that were kept (not refunded) when this run read its starting balance. */
  readonly earlierKept: readonly LedgerEntry[];
}
