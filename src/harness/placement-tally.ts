/**
 * How the target answered the valid orders the model placed: how many it
 * took (an id), and how the last refused one was answered. A run whose
 * every order was refused exercises almost nothing, and its unjudged checks
 * must say so (an order outside the provider's domain is the usual cause),
 * not that "no case came up".
 */
export interface PlacementCounts {
  readonly sent: number;
  readonly placed: number;
  /** The last refusal, as `HTTP 422 INVALID_REQUEST`. */
  readonly lastRefusal: string | undefined;
}

export interface PlacementTally {
  placed(): void;
  refused(status: number, code: string | undefined): void;
  counts(): PlacementCounts;
}

export function createPlacementTally(): PlacementTally {
  let sent = 0;
  let placed = 0;
  let lastRefusal: string | undefined;
  return {
    placed() {
      sent += 1;
      placed += 1;
    },
    refused(status, code) {
      sent += 1;
      lastRefusal = `HTTP ${status}${code === undefined ? "" : ` ${code}`}`;
    },
    counts: () => ({ sent, placed, lastRefusal }),
  };
}
