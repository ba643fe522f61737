/**
 * The transaction status table: one place for every status code the
 * simulator can report. The interface fixes only `0 = Pending`; the rest
 * follows the provider this interface most resembles, so integrators meet the
 * same numbers in the simulator as in production. A profile file may replace
 * the table (see `StatusTable`).
 */
export type StatusClass = "pending" | "success" | "failed";

export interface StatusDefinition {
  readonly code: number;
  readonly message: string;
  readonly class: StatusClass;
}

export type StatusTable = ReadonlyMap<number, StatusDefinition>;

export const PENDING_STATUS = 0;
export const SUCCESS_STATUS = 20;
export const FAILED_STATUS = 2;
export const TIMEOUT_STATUS = 6;
export const INSUFFICIENT_BALANCE_STATUS = 7;
export const REVERSED_STATUS = 8;
/** The status the balance endpoint reports, as the provider does. */
export const BALANCE_OK_STATUS = 20;

export const DEFAULT_STATUS_DEFINITIONS: readonly StatusDefinition[] = [
  { code: 0, message: "Pending", class: "pending" },
  { code: 3, message: "Submitted", class: "pending" },
  { code: 31, message: "Processing", class: "pending" },
  { code: 100, message: "Retrying", class: "pending" },
  { code: 101, message: "Retrying", class: "pending" },
  { code: 20, message: "Success", class: "success" },
  { code: 1, message: "Cancelled", class: "failed" },
  { code: 2, message: "Failed", class: "failed" },
  { code: 5, message: "Invalid", class: "failed" },
  { code: 6, message: "Timeout", class: "failed" },
  { code: 7, message: "Insufficient balance", class: "failed" },
  { code: 8, message: "Reversed", class: "failed" },
  { code: 9, message: "Refunded", class: "failed" },
  { code: 10, message: "Forbidden", class: "failed" },
  { code: 11, message: "Rejected", class: "failed" },
  { code: 13, message: "Error", class: "failed" },
  { code: 15, message: "Error", class: "failed" },
  { code: 16, message: "Error", class: "failed" },
  { code: 17, message: "Duplicate", class: "failed" },
  { code: 18, message: "Expired", class: "failed" },
  { code: 19, message: "Inactive", class: "failed" },
  { code: 24, message: "Error", class: "failed" },
  { code: 120, message: "Rejected", class: "failed" },
];

export function createStatusTable(definitions: readonly StatusDefinition[]): StatusTable {
  const table = new Map<number, StatusDefinition>();
  for (const definition of definitions) table.set(definition.code, definition);
  if (table.get(PENDING_STATUS)?.class !== "pending") {
    throw new Error("a status table must define 0 as a pending status");
  }
  return table;
}

export const DEFAULT_STATUS_TABLE: StatusTable = createStatusTable(DEFAULT_STATUS_DEFINITIONS);

export function isFinalStatus(table: StatusTable, code: number): boolean {
  const definition = table.get(code);
  return definition !== undefined && definition.class !== "pending";
}

/**
 * A final status never changes, except Success → Reversed. Pending statuses
 * may move to any status (another pending step, or a final one).
 */
export function isAllowedTransition(table: StatusTable, from: number, to: number): boolean {
  const source = table.get(from);
  const target = table.get(to);
  if (source === undefined || target === undefined || from === to) return false;
  if (source.class === "pending") return true;
  return source.class === "success" && to === REVERSED_STATUS;
}

/** Failed-class finals (Failed, Timeout, Reversed, …) give the money back. */
export function refundsWallet(table: StatusTable, code: number): boolean {
  return table.get(code)?.class === "failed";
}
