/** A process's own CPU time and resident memory, read from /proc on Linux, for the benches. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const CLOCK_TICKS_PER_S = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process (all its threads), or undefined where /proc is missing. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may contain spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MB, or undefined where /proc is missing. */
export function residentMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return line === undefined ? undefined : Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return undefined;
  }
}

export interface IdleWait {
  /** CPU seconds the process spent while the wait lasted. */
  readonly cpuS: number;
  readonly waitedMs: number;
  /** False when it was still busy at `maxMs`. */
  readonly idle: boolean;
}

/**
 * Waits until a process has gone quiet: under `share` of a core over a
 * window of `windowMs` (a few clock ticks at /proc's 10 ms resolution), at
 * most `maxMs`. A simulator keeps working after its load stops (it
 * finalises the last seconds' orders when they fall due and packs them),
 * and that work belongs to it, not to whichever server is measured next.
 */
export async function waitUntilIdle(
  pid: number | undefined,
  { windowMs = 500, share = 0.05, maxMs = 15_000 } = {},
): Promise<IdleWait> {
  const start = performance.now();
  const first = cpuSeconds(pid);
  if (first === undefined) return { cpuS: 0, waitedMs: 0, idle: true };
  let last = first;
  for (;;) {
    await new Promise((done) => setTimeout(done, windowMs));
    const now = cpuSeconds(pid) ?? last;
    const waitedMs = performance.now() - start;
    const quiet = now - last <= (share * windowMs) / 1000;
    last = now;
    if (quiet || waitedMs >= maxMs) return { cpuS: now - first, waitedMs, idle: quiet };
  }
}
