/**
 * Lanes: a property's search split into independent fast-check searches run
 * side by side, each with a seed of its own, so a real clock's waits overlap
 * instead of adding up. A failure names its lane's seed and path, so a replay
 * or a shrink runs that one lane alone, exactly as it ran.
 */

/** Lanes a real-clock model search runs at once: enough to overlap the waits, few enough to stay polite. */
export const MAX_LANES = 8;

/** The lanes of one search, as the runs inside them see it: which are still searching. */
export interface LaneSet {
  readonly count: number;
  /** Lanes still searching. */
  active(): number;
  /** A lane's search ended: whatever waits for every lane stops waiting for it. */
  leave(): void;
  onLeave(listener: () => void): void;
}

export function createLaneSet(count: number): LaneSet {
  let active = count;
  const listeners: (() => void)[] = [];
  return {
    count,
    active: () => active,
    leave() {
      active--;
      for (const listener of listeners) listener();
    },
    onLeave(listener) {
      listeners.push(listener);
    },
  };
}

/** Lane 0 keeps the run's seed; the others are spread from it, so two runs' lanes rarely share a seed. */
export function laneSeed(seed: number, lane: number): number {
  return lane === 0 ? seed : (seed + Math.imul(lane, 0x9e3779b1)) | 0;
}

/** `runs` shared out over `lanes` as evenly as possible, the first lanes taking the remainder. */
export function laneRuns(runs: number, lanes: number): number[] {
  return Array.from({ length: lanes }, (_, lane) => Math.floor(runs / lanes) + (lane < runs % lanes ? 1 : 0));
}
