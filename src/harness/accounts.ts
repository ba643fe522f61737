/**
 * Recipient numbers the harness may top up. Against a real deployment the
 * `--accounts` file is the only source of recipients: every generated order
 * picks one of its numbers by position, never an invented one.
 */
import { readFile } from "node:fs/promises";
import { detectService, parseKenyanMobile, type Service } from "../contract/operators.ts";
import type { CompiledDomain } from "../contract/provider-profile/compile.ts";
import { ACCOUNT_FORMS } from "../contract/provider-profile/domain-rules.ts";
import type { AccountFormat } from "../contract/provider-profile/schema.ts";
import { HarnessError } from "./checker.ts";

export interface Recipient {
  /** As sent: written as in the file, or in a form the provider's domain accepts. */
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

/** How each account form writes a national number (9 digits). */
const WRITE_FORM: Readonly<Record<AccountFormat, (nsn: string) => string>> = {
  local: (nsn) => `0${nsn}`,
  international: (nsn) => `254${nsn}`,
  e164: (nsn) => `+254${nsn}`,
  short: (nsn) => nsn,
};

/**
 * The same number written another way (0712…, 254712…, +254712…): under our
 * spec it is the same account, so the same payload for a key. The account as
 * given when it is not a Kenyan mobile number.
 */
export function writeAccount(account: string, form: AccountFormat): string {
  const number = parseKenyanMobile(account);
  return number === undefined ? account : WRITE_FORM[form](number.nsn);
}

/**
 * The recipients as a provider with this domain accepts them: each account
 * written in an accepted form (the first the domain lists, when its own is
 * not accepted), and those whose operator the provider does not serve left
 * out. A HarnessError when none is left.
 *
 * @example
 * inDomain(recipients, domain); // "0712000101" → "254712000101" for `accounts: [international]`
 */
export function inDomain(recipients: readonly Recipient[], domain: CompiledDomain): readonly Recipient[] {
  const [firstForm] = domain.accounts;
  const served = recipients.filter((recipient) => domain.services.includes(recipient.service));
  if (served.length === 0) {
    throw new HarnessError(
      `none of the accounts belongs to an operator the provider serves (${domain.services.join(", ")}): give --accounts for those`,
    );
  }
  return served.map((recipient) => {
    const accepted = domain.accounts.some((form) => ACCOUNT_FORMS[form].test(recipient.account));
    if (accepted || firstForm === undefined) return recipient;
    return { ...recipient, account: WRITE_FORM[firstForm](recipient.e164.slice(-9)) };
  });
}
