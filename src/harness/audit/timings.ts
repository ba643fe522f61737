/**
 * Where a contract run's wall time goes, by phase (search, replay, shrink;
 * settling orders, waiting for webhooks, pauses before re-reads), so
 * `--verbose` can show whether time went into the target's latency or into
 * the harness's own waiting.
 */
export interface Timings {
  add(phase: string, ms: number): void;
  /** Runs `body` and adds its wall time to `phase`. */
  time<T>(phase: string, body: () => Promise<T>): Promise<T>;
  totals(): Readonly<Record<string, number>>;
}

export function createTimings(): Timings {
  const totals = new Map<string, number>();
  const add = (phase: string, ms: number) => totals.set(phase, (totals.get(phase) ?? 0) + ms);
  return {
    add,
    async time(phase, body) {
      const started = Date.now();
      try {
        return await body();
      } finally {
        add(phase, Date.now() - started);
      }
    },
    totals: () => Object.fromEntries(totals),
  };
}
