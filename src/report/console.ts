/**
 * The console side of every report: how verdicts are painted, and whether
 * they are. Each command writes its own lines; colour comes only from the
 * caller, which asks `coloursFor` its output stream: a TTY whose
 * environment allows it (`NO_COLOR`, `FORCE_COLOR`, `TERM=dumb`, as Node's
 * `hasColors()` reads them). Piped into a file, another program or a CI
 * log, a report stays plain text.
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

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const ANSI: Paint = { green: sgr(32, 39), yellow: sgr(33, 39), red: sgr(31, 39), dim: sgr(2, 22) };

/** ANSI colours for a terminal stream that allows them, else plain text. */
export function coloursFor(
  stream: { readonly isTTY?: boolean; hasColors?: (env?: object) => boolean },
  env: NodeJS.ProcessEnv = process.env,
): Paint {
  if (stream.isTTY !== true || stream.hasColors === undefined) return PLAIN;
  // hasColors() already honours FORCE_COLOR and TERM; NO_COLOR only on newer Node, so it is read here too.
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return PLAIN;
  return stream.hasColors(env) ? ANSI : PLAIN;
}
