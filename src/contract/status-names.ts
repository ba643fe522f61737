/**
 * Final statuses by name: `failed`, `timeout`, `insufficient-balance`, or a
 * code like `2`. Names come from the status table's messages, so a profile
 * that replaces the table brings its own names; a message several codes
 * share (`Error`) names none of them alone, and the code must be given.
 */
import { REVERSED_STATUS, type StatusDefinition, type StatusTable, SUCCESS_STATUS } from "./status-codes.ts";

export type FinalStatusLookup =
  | { readonly kind: "final"; readonly definition: StatusDefinition }
  | { readonly kind: "not_final"; readonly definition: StatusDefinition }
  | { readonly kind: "ambiguous"; readonly name: string; readonly codes: readonly number[] }
  | { readonly kind: "unknown"; readonly text: string };

/** `Insufficient balance` → `insufficient-balance`. */
export function statusName(message: string): string {
  return message
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function finalDefinitions(table: StatusTable): StatusDefinition[] {
  return [...table.values()].filter((definition) => definition.class !== "pending");
}

/**
 * @example
 * lookupFinalStatus(DEFAULT_STATUS_TABLE, "failed"); // { kind: "final", definition: { code: 2, … } }
 * lookupFinalStatus(DEFAULT_STATUS_TABLE, "3");      // { kind: "not_final", … Submitted }
 */
export function lookupFinalStatus(table: StatusTable, text: string): FinalStatusLookup {
  const trimmed = text.trim();
  if (/^\d{1,6}$/.test(trimmed)) {
    const definition = table.get(Number(trimmed));
    if (definition === undefined) return { kind: "unknown", text };
    return definition.class === "pending" ? { kind: "not_final", definition } : { kind: "final", definition };
  }
  const name = statusName(trimmed);
  const named = [...table.values()].filter((definition) => statusName(definition.message) === name);
  const finals = named.filter((definition) => definition.class !== "pending");
  const [only] = finals;
  if (finals.length === 1 && only !== undefined) return { kind: "final", definition: only };
  if (finals.length > 1) return { kind: "ambiguous", name, codes: finals.map((definition) => definition.code) };
  const [pending] = named;
  return pending === undefined ? { kind: "unknown", text } : { kind: "not_final", definition: pending };
}

/** Every final status as `name (code)`, codes that share a name together: for a usage message. */
export function describeFinalStatuses(table: StatusTable): string {
  const byName = new Map<string, number[]>();
  for (const definition of finalDefinitions(table)) {
    const name = statusName(definition.message);
    byName.set(name, [...(byName.get(name) ?? []), definition.code]);
  }
  return [...byName].map(([name, codes]) => `${name} (${codes.join(", ")})`).join(", ");
}

/** Every final status code of the table, in table order. */
export function finalStatusCodes(table: StatusTable): number[] {
  return finalDefinitions(table).map((definition) => definition.code);
}

/**
 * The statuses an order passes through on its way to `code`: a reversal
 * follows a success, as it does at the provider; any other final status is
 * reached from pending in one step.
 */
export function pathToFinalStatus(code: number): number[] {
  return code === REVERSED_STATUS ? [SUCCESS_STATUS, REVERSED_STATUS] : [code];
}
