/**
 * What an inference step returns: the profile section it found, a note per
 * field saying how it was found (written as a comment beside the field), and
 * what it could not find (listed at the end of the file). A section that
 * cannot be found is left out: a profile that says less judges less, never
 * wrongly.
 */

/** A path into the profile, as the YAML document names it: `["bodies", "order", "id"]`. */
export type ProfilePath = readonly (string | number)[];

export interface FieldNote {
  readonly path: ProfilePath;
  readonly how: string;
}

export interface Finding<T> {
  readonly value: T;
  readonly notes: readonly FieldNote[];
  /** Each thing that could not be inferred, in words. */
  readonly missing: readonly string[];
}

/** Collects notes and misses while one step builds its section. */
export function createFindingLog() {
  const notes: FieldNote[] = [];
  const missing: string[] = [];
  return {
    notes,
    missing,
    note(path: ProfilePath, how: string) {
      notes.push({ path, how });
    },
    miss(what: string) {
      missing.push(what);
    },
    finding<T>(value: T): Finding<T> {
      return { value, notes, missing };
    },
  };
}

/** The last segment of a pointer, unescaped: what a field is called. */
function fieldName(pointer: string): string {
  const last = pointer.split("/").at(-1) ?? "";
  return last.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Candidates ordered by how well their pointer's names match, best first (a stable sort). */
export function byName(pointers: readonly string[], names: RegExp): string[] {
  const score = (pointer: string) => (names.test(fieldName(pointer)) ? 2 : names.test(pointer) ? 1 : 0);
  return [...pointers].sort((a, b) => score(b) - score(a));
}
