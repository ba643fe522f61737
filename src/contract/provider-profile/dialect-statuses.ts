/**
 * The simulator's own status codes in a provider's status table. The
 * simulator's rules run on our table (0, 3, 20, 2, 6, 7, 8 …); a profile
 * with its own table gets, for each of our codes, the entry of the same
 * class that names the same thing (Timeout ↔ TIMEOUT), else the first of that
 * class. Reversed goes to the table's `reversed` class, insufficient balance
 * to an entry that says "insufficient" where there is one.
 */
import {
  DEFAULT_STATUS_DEFINITIONS,
  INSUFFICIENT_BALANCE_STATUS,
  REVERSED_STATUS,
  type StatusDefinition,
} from "../status-codes.ts";
import type { ProfileStatusClass } from "./schema.ts";

export interface DialectStatusEntry {
  readonly code: number;
  readonly word?: string | undefined;
  readonly class: ProfileStatusClass;
  readonly message?: string | undefined;
}

/** A code's message in the profile's words (its `message`, else its word). */
export interface DialectStatus {
  readonly code: number;
  readonly word: string | undefined;
  readonly message: string;
}

function squash(text: string | undefined): string {
  return (text ?? "").toLowerCase().replaceAll(/[^a-z]/g, "");
}

function classOf(definition: StatusDefinition): ProfileStatusClass {
  return definition.code === REVERSED_STATUS ? "reversed" : definition.class;
}

function pick(definition: StatusDefinition, table: readonly DialectStatusEntry[]): DialectStatusEntry | undefined {
  const wanted = classOf(definition);
  const sameClass = table.filter((entry) => entry.class === wanted);
  const candidates = sameClass.length > 0 ? sameClass : table.filter((entry) => entry.class === "failed");
  const name = squash(definition.message);
  const named = (entry: DialectStatusEntry) => squash(entry.message) === name || squash(entry.word) === name;
  const insufficient = (entry: DialectStatusEntry) =>
    squash(entry.message).includes("insufficient") || squash(entry.word).includes("insufficient");
  return (
    (definition.code === INSUFFICIENT_BALANCE_STATUS ? candidates.find(insufficient) : undefined) ??
    candidates.find(named) ??
    candidates.find((entry) => entry.code === definition.code) ??
    candidates[0]
  );
}

/**
 * Our code → the profile's status, for every code our table knows; a code
 * outside it keeps its number.
 *
 * @example
 * const map = mapStatuses([{ code: 0, class: "pending" }, { code: 100, word: "SUCCESS", class: "success" }]);
 * map(20).code; // 100
 */
export function mapStatuses(table: readonly DialectStatusEntry[]): (code: number) => DialectStatus {
  const mapped = new Map<number, DialectStatus>();
  for (const definition of DEFAULT_STATUS_DEFINITIONS) {
    const entry = pick(definition, table);
    if (entry === undefined) continue;
    mapped.set(definition.code, {
      code: entry.code,
      word: entry.word,
      message: entry.message ?? entry.word ?? definition.message,
    });
  }
  return (code) => mapped.get(code) ?? { code, word: undefined, message: `status ${code}` };
}
