/**
 * The console side of every report: how verdicts are painted. Each command
 * writes its own lines; colour comes only from the caller, which passes it
 * for a terminal that allows it (NO_COLOR …), so a report piped into a file
 * or CI log stays plain text.
 */
import type { ReportVerdict } from "./json-report.ts";

export interface Paint {
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly red: (text: string) => string;
  readonly dim: (text: string) => string;
}

const plain = (text: string): string => text;
export const PLAIN: Paint = { green: plain, yellow: plain, red: plain, dim: plain };

/** The closing verdict line, green for a pass, red for a failure, yellow when nothing was judged. */
export function paintVerdict(verdict: ReportVerdict, line: string, paint: Paint = PLAIN): string {
  return { passed: paint.green, failed: paint.red, no_verdict: paint.yellow }[verdict](line);
}
