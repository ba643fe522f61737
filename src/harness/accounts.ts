/**
 * Recipient numbers the harness may top up. Against a real deployment the
 * `--accounts` file is the only source of recipients: every generated order
 * picks one of its numbers by position, never an invented one.
 */
import { readFile } from "node:fs/promises";
import { detectService, parseKenyanMobile, type Service } from "../contract/operators.ts";

export interface Recipient {
  /** As written in the file (sent as is). */
  readonly account: string;
  /** E.164, for comparison with lookups. */
  readonly e164: string;
  /** The operator owning the prefix; the harness sends it explicitly. */
  readonly service: Service;
}

/**
 * One number per operator, from ranges owned by that operator and not among
 * the simulator's magic test numbers, used when no `--accounts` file is given.
 */
export const DEFAULT_ACCOUNTS: readonly string[] = [
  "0712000101",
  "0733000202",
  "0770000303",
  "0747000404",
  "0763000505",
];

export type RecipientsResult =
  { readonly ok: true; readonly recipients: readonly Recipient[] } | { readonly ok: false; readonly error: string };

/** Parses accounts text: one number per line; blank lines and `#` comments ignored. */
function parseAccounts(text: string): RecipientsResult {
  const recipients: Recipient[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const parsed = toRecipient(line);
    if (parsed === undefined) {
      return {
        ok: false,
        error: `line ${index + 1}: '${line}' is not a Kenyan mobile number of one of the five operators`,
      };
    }
    recipients.push(parsed);
  }
  if (recipients.length === 0) return { ok: false, error: "no account numbers found" };
  return { ok: true, recipients };
}

export async function loadAccounts(file: string): Promise<RecipientsResult> {
  try {
    return parseAccounts(await readFile(file, "utf8"));
  } catch (error) {
    return { ok: false, error: `cannot read ${file}: ${(error as Error).message}` };
  }
}

export function toRecipient(account: string): Recipient | undefined {
  const number = parseKenyanMobile(account);
  if (number === undefined) return undefined;
  const service = detectService(number.nsn);
  return service === undefined ? undefined : { account, e164: number.e164, service };
}

export function defaultRecipients(): readonly Recipient[] {
  return DEFAULT_ACCOUNTS.map((account) => toRecipient(account) as Recipient);
}
