/**
 * "Did you mean": the known name a mistyped one most likely meant, for
 * commands, flags, config keys and scenario names alike. Levenshtein
 * distance (fastest-levenshtein), with a bound that grows with the name so
 * a short typo is caught and an unrelated word is not matched to anything.
 */
import { distance } from "fastest-levenshtein";

/** Edits allowed between a typo and what it meant: a transposition counts two. */
function allowedEdits(length: number): number {
  return length <= 2 ? 1 : Math.max(2, Math.floor(length / 3));
}

/**
 * `; did you mean 'serve'?` for a typo of a known name, or "" when none is near.
 *
 * @example
 * `unknown command 'serv'${didYouMean("serv", ["serve"])}`; // "unknown command 'serv'; did you mean 'serve'?"
 */
export function didYouMean(given: string, known: Iterable<string>): string {
  const meant = closestName(given, known);
  return meant === undefined ? "" : `; did you mean '${meant}'?`;
}

/**
 * The known name nearest `given`, or undefined when none is near enough to
 * be a typo of it. Case does not count.
 *
 * @example
 * closestName("serv", ["serve", "listen"]); // "serve"
 * closestName("frobnicate", ["serve", "listen"]); // undefined
 */
export function closestName(given: string, known: Iterable<string>): string | undefined {
  const typed = given.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const edits = distance(typed, name.toLowerCase());
    if (edits < bestDistance) [best, bestDistance] = [name, edits];
  }
  return bestDistance <= allowedEdits(typed.length) ? best : undefined;
}
