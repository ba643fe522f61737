/**
 * Colour for the terminal only: a stream that is a TTY and whose
 * environment allows it (`NO_COLOR`, `FORCE_COLOR`, `TERM=dumb`, as Node's
 * `hasColors()` reads them). Piped into a file or another program, output
 * stays plain text.
 */
import { type Paint, PLAIN } from "../report/console.ts";

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const ANSI: Paint = { green: sgr(32, 39), yellow: sgr(33, 39), red: sgr(31, 39), dim: sgr(2, 22) };

export function coloursFor(
  stream: { readonly isTTY?: boolean; hasColors?: (env?: object) => boolean },
  env: NodeJS.ProcessEnv = process.env,
): Paint {
  if (stream.isTTY !== true || stream.hasColors === undefined) return PLAIN;
  // hasColors() already honours FORCE_COLOR and TERM; NO_COLOR only on newer Node, so it is read here too.
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return PLAIN;
  return stream.hasColors(env) ? ANSI : PLAIN;
}
