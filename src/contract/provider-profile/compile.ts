/**
 * A profile compiled once into the functions that read bodies through it:
 * pointers pre-split, the status table as maps (value → code and class), the
 * money parser, the error-code reader, the webhook event filter, the
 * delivery-id reader and the signature verifier. Every read of a provider's
 * body goes through one of these, so no caller names a body field.
 */
import { toCents } from "../money.ts";
import { SERVICES, type Service } from "../operators.ts";
import { DEFAULT_ORDER_LIMITS, REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "../public-schemas.ts";
import {
  createStatusTable,
  DEFAULT_STATUS_DEFINITIONS,
  REVERSED_STATUS,
  type StatusDefinition,
  type StatusTable,
} from "../status-codes.ts";
import { compilePointer } from "./pointer.ts";
import type { AccountFormat, ProfileSigning, ProfileStatusClass, ProviderProfile, TransitionEnd } from "./schema.ts";
import { createSignatureVerifier, type FlatHeaders, type SignatureVerifier } from "./signing.ts";

/** An order as one body shows it; a part the body lacks (or writes wrongly) is undefined. */
export interface OrderFields {
  readonly id: string | undefined;
  readonly reference: string | undefined;
  /** The status as a code of the table (a word is translated); undefined when absent or unknown. */
  readonly status: number | undefined;
  /** The status as written, for messages. */
  readonly statusValue: unknown;
  readonly amountCents: number | undefined;
}

export type OrderBodyKind = "order" | "lookup" | "webhook";
export type BodyKind = OrderBodyKind | "balance" | "error";

const MAIN_FIELD: Readonly<Record<BodyKind, string>> = {
  order: "id",
  lookup: "id",
  webhook: "id",
  balance: "amount",
  error: "code",
};

/** Which sections the file gave: under `interface`, a section left out is not judged where the interface is silent. */
export interface GivenSections {
  readonly statuses: boolean;
  readonly http: boolean;
  readonly errorCodes: boolean;
  readonly signing: boolean;
  readonly event: boolean;
  /** The file names where the webhook body keeps its fields. */
  readonly webhookBody: boolean;
  readonly domain: boolean;
  readonly rateLimit: boolean;
}

export interface CompiledStatuses {
  /** The table as the model keeps it (reversed counts as a refunded, failed-class final). */
  readonly table: StatusTable;
  classOf(code: number): ProfileStatusClass | undefined;
  isFinal(code: number): boolean;
  refunds(code: number): boolean;
  /**
   * `to` may be observed after `from`: staying put, or reachable by a path of
   * the table's transitions (an observer can miss the steps in between:
   * pending, then reversed, when the success came and went unseen).
   */
  isAllowedMove(from: number, to: number): boolean;
  /** "Success", "Timeout" … or `status N`. */
  nameOf(code: number): string;
  /** How a status is written in the lookup and webhook: 20 or "SUCCESS". */
  written(code: number): number | string;
  /** A status as written → its code: a number, a numeric string, or (mode "any") a word of the table. */
  fromValue(value: unknown, mode: "number" | "any"): number | undefined;
}

export interface CompiledDomain {
  readonly minAmount: number;
  readonly maxAmount: number;
  readonly decimals: number;
  readonly referencePattern: RegExp;
  readonly referenceMaxLength: number;
  readonly accounts: readonly AccountFormat[];
  readonly services: readonly Service[];
  readonly currency: string;
}

export interface CompiledProfile {
  readonly name: string;
  /** The file's sections merged over our spec's: every field present. */
  readonly resolved: ResolvedProfile;
  readonly given: GivenSections;
  /** The pointer a field is read at, for messages (`no status at /data/status`); balance: its amount, error: its code. */
  pointer(kind: BodyKind, field?: string): string;
  /** The raw value at a field's pointer, for judging its type (§2.3). */
  readField(kind: BodyKind, field: string, body: unknown): unknown;
  readOrder(kind: OrderBodyKind, body: unknown): OrderFields;
  readBalanceCents(body: unknown): number | undefined;
  readErrorCode(body: unknown): string | undefined;
  readonly statuses: CompiledStatuses;
  /** The payload is an order-status event (the profile's event filter). */
  isStatusEvent(payload: unknown): boolean;
  /** What tells a retried delivery from a new event. */
  deliveryId(headers: FlatHeaders, payload: unknown): string | undefined;
  verifier(secret: string | undefined): SignatureVerifier;
  readonly domain: CompiledDomain;
}

/**
 * Our spec as a provider profile: the default every section falls back to.
 * `examples/providers/airtime-harness.yaml` writes the same out as a file.
 */

/** The status our spec writes for Reversed belongs to its own class: final, refunded, reachable from Success. */
const SPEC_STATUS_TABLE = DEFAULT_STATUS_DEFINITIONS.map((definition) => ({
  code: definition.code,
  class: definition.code === REVERSED_STATUS ? ("reversed" as const) : definition.class,
  message: definition.message,
}));

/** Every section filled in: what `compileProfile` merges a file's sections over. */
export const DEFAULT_PROVIDER_PROFILE = {
  profile: 1,
  name: "airtime-harness (our spec)",
  bodies: {
    order: { id: "/id", reference: "/reference", status: "/status", message: "/message" },
    lookup: { id: "/id", reference: "/reference", status: "/status", amount: "/amount" },
    webhook: { id: "/id", reference: "/reference", status: "/status", amount: "/amount" },
    balance: { amount: "/amount" },
    error: { code: "/code", message: "/detail" },
  },
  money: "number",
  statuses: {
    values: "code",
    table: SPEC_STATUS_TABLE,
    transitions: [
      ["pending", "pending"],
      ["pending", "success"],
      ["pending", "failed"],
      ["pending", "reversed"],
      ["success", "reversed"],
    ],
  },
  http: { invalidInput: 400, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
  // Our spec's codes vary by cause (missing_token, invalid_token …); strict judges them with the catalogue.
  errorCodes: {},
  webhooks: {
    event: { pointer: "/type", values: ["airtime.status"] },
    deliveryId: { header: "webhook-id" },
    signing: { scheme: "standard-webhooks" },
  },
  domain: {
    amount: { min: DEFAULT_ORDER_LIMITS.minAmount, max: DEFAULT_ORDER_LIMITS.maxAmount, decimals: 2 },
    reference: { pattern: REFERENCE_PATTERN.source, maxLength: REFERENCE_MAX_LENGTH },
    accounts: ["local", "international", "e164", "short"],
    services: [...SERVICES],
    currency: "KES",
  },
} as const satisfies ProviderProfile;

type Defaults = typeof DEFAULT_PROVIDER_PROFILE;
export interface ResolvedProfile {
  readonly bodies: {
    readonly order: Record<"id" | "reference" | "status" | "message", string>;
    readonly lookup: Record<"id" | "reference" | "status" | "amount", string>;
    readonly webhook: Record<"id" | "reference" | "status" | "amount", string>;
    readonly balance: { readonly amount: string };
    readonly error: { readonly code: string; readonly message: string };
  };
  readonly money: "number" | "string";
  readonly statusValues: "code" | "word";
  readonly http: NonNullable<ProviderProfile["http"]>;
  readonly errorCodes: NonNullable<ProviderProfile["errorCodes"]>;
  readonly event: { readonly pointer: string; readonly values: readonly string[] };
  readonly deliveryId: { readonly header: string } | { readonly pointer: string };
  readonly signing: ProfileSigning;
  readonly rateLimit: ProviderProfile["rateLimit"];
}

/**
 * @example
 * const profile = compileProfile(loaded); // once, at start-up
 * profile.readOrder("lookup", body).status; // 20, also when the body says "SUCCESS"
 */
export function compileProfile(given?: ProviderProfile): CompiledProfile {
  const defaults: Defaults = DEFAULT_PROVIDER_PROFILE;
  // No file: our spec, with no section "given" (under `interface` nothing beyond the interface is judged).
  const file: ProviderProfile = given ?? { profile: 1 };
  const bodies = file.bodies ?? {};
  const resolved: ResolvedProfile = {
    bodies: {
      order: overDefaults(defaults.bodies.order, bodies.order),
      lookup: overDefaults(defaults.bodies.lookup, bodies.lookup),
      webhook: overDefaults(defaults.bodies.webhook, bodies.webhook),
      balance: overDefaults(defaults.bodies.balance, bodies.balance),
      error: overDefaults(defaults.bodies.error, bodies.error),
    },
    money: file.money ?? defaults.money,
    statusValues: file.statuses?.values ?? defaults.statuses.values,
    http: file.http ?? defaults.http,
    errorCodes: file.errorCodes ?? defaults.errorCodes,
    event: file.webhooks?.event ?? defaults.webhooks.event,
    deliveryId: file.webhooks?.deliveryId ?? defaults.webhooks.deliveryId,
    signing: file.webhooks?.signing ?? defaults.webhooks.signing,
    rateLimit: file.rateLimit,
  };
  const statuses = compileStatuses(
    file.statuses?.table ?? defaults.statuses.table,
    file.statuses?.transitions ?? defaults.statuses.transitions,
  );
  const readers = {
    order: compileOrderReader(resolved.bodies.order, statuses, "number"),
    lookup: compileOrderReader(resolved.bodies.lookup, statuses, "any"),
    webhook: compileOrderReader(resolved.bodies.webhook, statuses, "any"),
  };
  const readBalance = compilePointer(resolved.bodies.balance.amount);
  const readCode = compilePointer(resolved.bodies.error.code);
  const readEvent = compilePointer(resolved.event.pointer);
  const eventValues = new Set<unknown>(resolved.event.values);
  const deliveryId = resolved.deliveryId;
  const readDeliveryPointer = "pointer" in deliveryId ? compilePointer(deliveryId.pointer) : undefined;
  const deliveryHeader = "header" in deliveryId ? deliveryId.header.toLowerCase() : undefined;
  return {
    name: file.name ?? (given === undefined ? defaults.name : "provider profile"),
    resolved,
    given: {
      statuses: file.statuses?.table !== undefined,
      http: file.http !== undefined,
      errorCodes: file.errorCodes !== undefined,
      signing: file.webhooks?.signing !== undefined,
      event: file.webhooks?.event !== undefined,
      webhookBody: file.bodies?.webhook !== undefined,
      domain: file.domain !== undefined,
      rateLimit: file.rateLimit !== undefined,
    },
    pointer: (kind, field = MAIN_FIELD[kind]) => (resolved.bodies[kind] as Record<string, string>)[field] ?? "",
    readField: (kind, field, body) => {
      const pointer = (resolved.bodies[kind] as Record<string, string>)[field];
      return pointer === undefined ? undefined : compilePointer(pointer)(body);
    },
    readOrder: (kind, body) => readers[kind](body),
    readBalanceCents: (body) => parseMoneyCents(readBalance(body)),
    readErrorCode(body) {
      const code = readCode(body);
      return typeof code === "string" ? code : undefined;
    },
    statuses,
    isStatusEvent: (payload) => eventValues.has(readEvent(payload)),
    deliveryId(headers, payload) {
      const value = deliveryHeader === undefined ? readDeliveryPointer?.(payload) : headers[deliveryHeader];
      return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined;
    },
    verifier: (secret) => createSignatureVerifier(resolved.signing, secret),
    domain: compileDomain(file.domain),
  };
}

/** Money as a number or a decimal string ("10.00"), in cents; undefined when it is neither. */
function parseMoneyCents(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return toCents(value);
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return toCents(Number(value));
  return undefined;
}

/** Each pointer the file gives, else our spec's; `extra` is the simulator's, not read here. */
function overDefaults<K extends string>(
  defaults: Readonly<Record<K, string>>,
  given: object | undefined,
): Record<K, string> {
  const merged: Record<K, string> = { ...defaults };
  for (const key of Object.keys(defaults) as K[]) {
    const pointer = (given as Partial<Record<K, unknown>> | undefined)?.[key];
    if (typeof pointer === "string") merged[key] = pointer;
  }
  return merged;
}

function compileOrderReader(
  pointers: Readonly<Record<string, string>>,
  statuses: CompiledStatuses & { readonly fromValue: (value: unknown, mode: "number" | "any") => number | undefined },
  mode: "number" | "any",
): (body: unknown) => OrderFields {
  const id = compilePointer(pointers.id ?? "/id");
  const reference = compilePointer(pointers.reference ?? "/reference");
  const status = compilePointer(pointers.status ?? "/status");
  const amount = pointers.amount === undefined ? () => undefined : compilePointer(pointers.amount);
  return (body) => {
    const idValue = id(body);
    const referenceValue = reference(body);
    const statusValue = status(body);
    return {
      id:
        typeof idValue === "string" && idValue !== ""
          ? idValue
          : typeof idValue === "number"
            ? String(idValue)
            : undefined,
      reference: typeof referenceValue === "string" ? referenceValue : undefined,
      status: statuses.fromValue(statusValue, mode),
      statusValue,
      amountCents: parseMoneyCents(amount(body)),
    };
  };
}

interface StatusEntry {
  readonly code: number;
  readonly word?: string | undefined;
  readonly class: ProfileStatusClass;
  readonly message?: string | undefined;
}

function compileStatuses(
  entries: readonly StatusEntry[],
  transitions: readonly (readonly [TransitionEnd, TransitionEnd])[],
): CompiledStatuses & { readonly fromValue: (value: unknown, mode: "number" | "any") => number | undefined } {
  const byCode = new Map(entries.map((entry) => [entry.code, entry]));
  const byWord = new Map(entries.flatMap((entry) => (entry.word === undefined ? [] : [[entry.word, entry] as const])));
  const definitions: StatusDefinition[] = entries.map((entry) => ({
    code: entry.code,
    message: entry.message ?? entry.word ?? `status ${entry.code}`,
    // The model's table knows three classes; a reversal is a final that refunds, as a failure is.
    class: entry.class === "reversed" ? "failed" : entry.class,
  }));
  const matches = (end: TransitionEnd, code: number): boolean => {
    if (typeof end === "number") return end === code;
    const entry = byCode.get(code);
    return entry !== undefined && (entry.class === end || entry.word === end);
  };
  const classOf = (code: number) => byCode.get(code)?.class;
  const direct = (from: number, to: number) => transitions.some(([a, b]) => matches(a, from) && matches(b, to));
  const reachable = new Map(entries.map((entry) => [entry.code, reachableFrom(entry.code, entries, direct)]));
  return {
    table: createStatusTable(definitions),
    classOf,
    isFinal: (code) => {
      const statusClass = classOf(code);
      return statusClass !== undefined && statusClass !== "pending";
    },
    refunds: (code) => classOf(code) === "failed" || classOf(code) === "reversed",
    isAllowedMove: (from, to) => from === to || reachable.get(from)?.has(to) === true,
    nameOf: (code) => {
      const entry = byCode.get(code);
      return entry?.message ?? entry?.word ?? `status ${code}`;
    },
    written: (code) => byCode.get(code)?.word ?? code,
    fromValue(value, mode) {
      if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
      if (typeof value !== "string") return undefined;
      // §2.3 fixes the send-airtime status as a number; a numeric string is read, a word is not.
      if (/^\d+$/.test(value)) return Number(value);
      return mode === "any" ? byWord.get(value)?.code : undefined;
    },
  };
}

/** Every code a path of direct moves leads to from `start`. */
function reachableFrom(
  start: number,
  entries: readonly StatusEntry[],
  direct: (from: number, to: number) => boolean,
): ReadonlySet<number> {
  const seen = new Set<number>();
  const queue = [start];
  for (let code = queue.shift(); code !== undefined; code = queue.shift()) {
    for (const entry of entries) {
      if (!seen.has(entry.code) && direct(code, entry.code)) {
        seen.add(entry.code);
        queue.push(entry.code);
      }
    }
  }
  return seen;
}

const ALL_SERVICES: readonly Service[] = ["safaricom", "airtel", "telkom", "jtl", "equitel"];

function compileDomain(domain: ProviderProfile["domain"]): CompiledDomain {
  const defaults = DEFAULT_PROVIDER_PROFILE.domain;
  return {
    minAmount: domain?.amount?.min ?? defaults.amount.min,
    maxAmount: domain?.amount?.max ?? defaults.amount.max,
    decimals: domain?.amount?.decimals ?? defaults.amount.decimals,
    referencePattern: new RegExp(domain?.reference?.pattern ?? defaults.reference.pattern, "u"),
    referenceMaxLength: domain?.reference?.maxLength ?? defaults.reference.maxLength,
    accounts: domain?.accounts ?? defaults.accounts,
    services: domain?.services ?? ALL_SERVICES,
    currency: domain?.currency ?? defaults.currency,
  };
}
