/**
 * Waves: model runs that share one account and run side by side (lanes.ts)
 * meet twice. Every lane's next run joins the forming wave; the last to join
 * opens it — settles the account's earlier orders and reads the starting
 * balance, once for all. At the end the last member to finish judges the
 * balance once against every member's orders, in its own run, so the failure
 * is that run's. A member that ended early (it failed) leaves the wave's
 * balance unjudged: its orders' money can no longer be accounted for.
 */
import type { LaneSet } from "../lanes.ts";

export interface BalanceWave<Start, Part> {
  readonly start: Start;
  /** This run's part; the last member to finish runs `judge` over every part. Resolves when the wave is done. */
  finish(part: Part, judge: (parts: readonly Part[]) => Promise<void>): Promise<void>;
  /** This run ended without its part: the wave's balance is not judged. Safe to call after `finish`. */
  abandon(): void;
}

export interface BalanceWaves<Start, Part> {
  /** Joins the forming wave; the last lane to join runs `open`, and every member starts from its result. */
  join(open: () => Promise<Start>): Promise<BalanceWave<Start, Part>>;
}

interface Forming<Start, Part> {
  readonly joiners: { resolve(member: BalanceWave<Start, Part>): void; reject(error: unknown): void }[];
  open: (() => Promise<Start>) | undefined;
}

interface Running<Part> {
  outstanding: number;
  abandoned: boolean;
  readonly parts: Part[];
  readonly done: Promise<void>;
  close(): void;
}

export function createBalanceWaves<Start, Part>(lanes: LaneSet): BalanceWaves<Start, Part> {
  let forming: Forming<Start, Part> = { joiners: [], open: undefined };
  let running: Running<Part> | undefined;

  const startRunning = (members: number): Running<Part> => {
    let resolveDone = () => {};
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const wave: Running<Part> = {
      outstanding: members,
      abandoned: false,
      parts: [],
      done,
      close() {
        if (running === wave) running = undefined;
        resolveDone();
      },
    };
    return wave;
  };

  const openWhenAllJoined = () => {
    const wave = forming;
    if (wave.open === undefined || wave.joiners.length < lanes.active()) return;
    forming = { joiners: [], open: undefined };
    const run = startRunning(wave.joiners.length);
    running = run;
    wave.open().then(
      (start) => wave.joiners.forEach((joiner) => joiner.resolve(memberOf(run, start))),
      (error: unknown) => {
        run.close();
        wave.joiners.forEach((joiner) => joiner.reject(error));
      },
    );
  };
  lanes.onLeave(openWhenAllJoined);

  return {
    async join(open) {
      // A lane whose run ended early can come back before the wave it left is done: it joins the next one.
      while (running !== undefined) await running.done;
      return new Promise((resolve, reject) => {
        forming.joiners.push({ resolve, reject });
        forming.open = open;
        openWhenAllJoined();
      });
    },
  };
}

/** One run's place in a wave: it counts once, by finishing or by abandoning. */
function memberOf<Start, Part>(wave: Running<Part>, start: Start): BalanceWave<Start, Part> {
  let counted = false;
  const leave = (): boolean => {
    if (counted) return false;
    counted = true;
    wave.outstanding--;
    return wave.outstanding === 0;
  };
  return {
    start,
    async finish(part, judge) {
      wave.parts.push(part);
      if (!leave()) return wave.done;
      try {
        if (!wave.abandoned) await judge(wave.parts);
      } finally {
        wave.close();
      }
    },
    abandon() {
      if (counted) return;
      wave.abandoned = true;
      if (leave()) wave.close();
    },
  };
}
