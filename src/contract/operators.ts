/**
 * Kenyan mobile numbers: the four written forms, and which of the five
 * operators owns a number's prefix. The prefix table is data kept in one place
 * so a new block allocated by the regulator is a one-line change. Source:
 * libphonenumber carrier data for +254.
 */
export const SERVICES = ["safaricom", "airtel", "telkom", "jtl", "equitel"] as const;
export type Service = (typeof SERVICES)[number];

/** Operator by national significant number (9 digits), longest prefix wins. */
const OPERATOR_NSN_PATTERNS: Readonly<Record<Service, RegExp>> = {
  safaricom: /^(?:7(?:[0-2]\d|4[0-35689]|5[7-9]|6[89]|9\d)|1(?:1\d|4[0-5]|8\d))\d{6}$/,
  airtel: /^(?:7(?:3\d|5[0-6]|6[12]|8\d)|10[0-8])\d{6}$/,
  telkom: /^(?:77\d|120)\d{6}$/,
  jtl: /^747\d{6}$/,
  equitel: /^(?:76[3-6]|124)\d{6}$/,
};

/** Any Kenyan mobile NSN (libphonenumber's mobile pattern). */
export const MOBILE_NSN_PATTERN = /^(?:1(?:0[0-8]|[18]\d|2[014]|30|4[0-5])|7\d\d)\d{6}$/;

/** The four forms: `+254712345678`, `254712345678`, `0712345678`, `712345678`. */
export const ACCOUNT_PATTERN = /^(?:\+254|254|0)?[17]\d{8}$/;

/** What `parseKenyanMobile` accepts, as one expression (a JSON Schema `pattern` can carry it). */
export const KENYAN_MOBILE_PATTERN = new RegExp(`^(?:\\+254|254|0)?${MOBILE_NSN_PATTERN.source.slice(1)}`);

export interface KenyanNumber {
  /** The 9-digit national significant number. */
  readonly nsn: string;
  /** `+254` followed by the NSN. */
  readonly e164: string;
}

export function parseKenyanMobile(input: string): KenyanNumber | undefined {
  if (!ACCOUNT_PATTERN.test(input)) return undefined;
  const nsn = input.slice(-9);
  if (!MOBILE_NSN_PATTERN.test(nsn)) return undefined;
  return { nsn, e164: `+254${nsn}` };
}

/** The operator that owns the number's prefix, or undefined when none of the five does. */
export function detectService(nsn: string): Service | undefined {
  for (const service of SERVICES) {
    if (OPERATOR_NSN_PATTERNS[service].test(nsn)) return service;
  }
  return undefined;
}
