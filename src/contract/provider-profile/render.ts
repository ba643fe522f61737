/**
 * A provider profile compiled, once at start-up, into the functions that
 * write the simulator's public answers and webhooks in that provider's
 * dialect. Each takes the body our spec would send (the presenters' output)
 * and returns the dialect's: fields moved to the profile's pointers, money as
 * a number or a decimal string, statuses as the profile's codes or words,
 * errors with the profile's HTTP statuses and codes. Our spec is the default
 * profile; its layouts compile to the identity, so its bodies are the very
 * objects the presenters built.
 */
import type { FailedOrderResponse, Problem } from "../public-schemas.ts";
import { compileLayout, type ExtraTemplate, type RenderContext, type SpecBody } from "./body-layout.ts";
import { compileProfile, type CompiledProfile } from "./compile.ts";
import { mapStatuses } from "./dialect-statuses.ts";
import { compileDomainRules, type DomainRules } from "./domain-rules.ts";
import { compileErrorAnswers } from "./error-answers.ts";
import type { ProviderProfile } from "./schema.ts";
import { createWebhookSigner, type WebhookSigner } from "./signing.ts";

export type { RenderContext } from "./body-layout.ts";

/** A rendered answer: its HTTP status, media type and body. */
export interface RenderedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

export interface DialectRenderer {
  /** The profile as loaded; undefined for our spec. */
  readonly source: ProviderProfile | undefined;
  readonly profile: CompiledProfile;
  /** What the provider accepts beyond our schema; undefined when the profile has no `domain` (nothing more to check). */
  readonly domainRules: DomainRules | undefined;
  /** The send-airtime answer (HTTP 200). */
  order(spec: SpecBody, context?: RenderContext): unknown;
  /** A failed order for want of balance: HTTP 200 without id (§7), or an error status. */
  insufficient(spec: FailedOrderResponse): RenderedAnswer;
  lookup(spec: SpecBody): unknown;
  balance(spec: SpecBody): unknown;
  /** Any problem of the public API, with the profile's status and code where it gives them. */
  error(problem: Problem): RenderedAnswer;
  /** The webhook body for a status change. */
  webhook(spec: SpecBody, context?: RenderContext): unknown;
  /** The headers of one webhook attempt: the delivery id and the signature, as the profile's scheme writes them. */
  readonly signWebhook: WebhookSigner;
}

export interface RendererOptions {
  readonly newUuid: () => string;
}

const PROBLEM_TYPE = "application/problem+json; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

/** "10.00": what a provider that writes money as strings writes. */
function moneyString(value: unknown): unknown {
  return typeof value === "number" ? value.toFixed(2) : value;
}

/** The balance's kept wallet list, each wallet's amount written as the dialect writes money. */
function walletsMoneyString(value: unknown): unknown {
  return Array.isArray(value)
    ? value.map((wallet: SpecBody) => ({ ...wallet, amount: moneyString(wallet.amount) }))
    : value;
}

/** The event value a status change is announced under: the profile's value that names its class. */
function eventFor(values: readonly string[], statusClass: string | undefined): string {
  const hints: Record<string, readonly string[]> = {
    success: ["complet", "success", "succeed"],
    failed: ["fail"],
    reversed: ["revers"],
    pending: ["pending"],
  };
  const wanted = hints[statusClass ?? "pending"] ?? [];
  return values.find((value) => wanted.some((hint) => value.toLowerCase().includes(hint))) ?? (values[0] as string);
}

/**
 * @example
 * const render = compileRenderer(loadedProfile, { newUuid: randomUUID }); // once
 * sendJson(res, 200, render.order(presentOrder(order)));
 */
export function compileRenderer(file: ProviderProfile | undefined, options: RendererOptions): DialectRenderer {
  const profile = compileProfile(file);
  const { order: orderLayout, errorLayout, ...layouts } = compileLayouts(file, profile, options.newUuid);
  const answers = compileErrorAnswers(file, profile);
  // Our spec's errors are RFC 9457 problems; a provider's own error body is plain JSON.
  const errorType = answers.contentType === "application/problem+json" ? PROBLEM_TYPE : JSON_TYPE;

  return {
    source: file,
    profile,
    domainRules: file?.domain === undefined ? undefined : compileDomainRules(profile.domain),
    order: (spec, context) => orderLayout(spec, context),
    insufficient(spec) {
      const status = answers.insufficientStatus;
      const { code: ourCode, ...order } = spec;
      const body = orderLayout(order) as Record<string, unknown>;
      const errorCode = answers.codeFor(ourCode);
      // The code sits where any error's code sits; a provider's own error body also takes the message (ours: §7's order alone).
      const message = profile.statuses.nameOf(profile.readOrder("order", body).status ?? spec.status);
      const error = errorLayout(
        isSpecError(profile.resolved.bodies.error) ? { code: errorCode } : { code: errorCode, detail: message },
      ) as Record<string, unknown>;
      return { status, contentType: JSON_TYPE, body: mergeInto(body, error) };
    },
    lookup: (spec) => layouts.lookup(spec, { createdAt: spec.createdAt as string | undefined }),
    balance: (spec) => layouts.balance(spec),
    error(problem) {
      const status = answers.statusFor(problem.code, problem.status);
      const code = answers.codeFor(problem.code);
      const spec = status === problem.status && code === problem.code ? problem : { ...problem, status, code };
      return { status, contentType: errorType, body: errorLayout(spec) };
    },
    webhook: (spec, context) => layouts.webhook(spec, context),
    signWebhook: createWebhookSigner(profile.resolved.signing, profile.resolved.deliveryId),
  };
}

type Convert = (value: unknown, spec: SpecBody) => unknown;

/** How our status codes are written: in the order answer (a number, §2.3), in records (code or word), their message. */
function compileStatusWriters(file: ProviderProfile | undefined, profile: CompiledProfile) {
  const table = file?.statuses?.table;
  const dialect = table === undefined ? undefined : mapStatuses(table);
  const words = profile.resolved.statusValues === "word";
  const number: Convert = (value) => (dialect !== undefined && typeof value === "number" ? dialect(value).code : value);
  const record: Convert = (value) => {
    if (typeof value !== "number") return value;
    const code = dialect === undefined ? value : dialect(value).code;
    return words ? profile.statuses.written(code) : code;
  };
  const message: Convert = (value, spec) =>
    dialect !== undefined && typeof spec.status === "number" ? dialect(spec.status).message : value;
  const classOf = (ours: number) => profile.statuses.classOf(dialect === undefined ? ours : dialect(ours).code);
  // A kept history speaks the dialect too: each entry's status and message as the record's own.
  const history: Convert = (value) =>
    Array.isArray(value)
      ? value.map((entry: SpecBody) => ({
          ...entry,
          status: record(entry.status, entry),
          ...(dialect === undefined ? {} : { message: message(entry.message, entry) }),
        }))
      : value;
  return {
    order: dialect === undefined ? {} : { status: number, message },
    record: {
      ...(dialect === undefined && !words ? {} : { status: record, history }),
      ...(dialect === undefined ? {} : { message }),
    },
    classOf,
  };
}

function compileLayouts(file: ProviderProfile | undefined, profile: CompiledProfile, newUuid: () => string) {
  const { bodies, money, event } = profile.resolved;
  const extras = (kind: keyof NonNullable<ProviderProfile["bodies"]>) =>
    file?.bodies?.[kind]?.extra as Readonly<Record<string, ExtraTemplate>> | undefined;
  const statuses = compileStatusWriters(file, profile);
  const moneyConvert = money === "string" ? { amount: moneyString } : {};
  const record = { ...moneyConvert, ...statuses.record };
  const ourEvent = event.pointer === "/type" && event.values.length === 1 && event.values[0] === "airtime.status";
  const eventConvert: Record<string, Convert> = ourEvent
    ? {}
    : {
        type: (_value, spec) =>
          eventFor(event.values, typeof spec.status === "number" ? statuses.classOf(spec.status) : undefined),
      };
  const deliveryId = profile.resolved.deliveryId;
  const webhookExtras = {
    ...extras("webhook"),
    ...("pointer" in deliveryId ? { [deliveryId.pointer]: { deliveryId: true as const } } : {}),
  };
  // A body the file describes holds what it states (its pointers, `extra`, `passthrough`); one it leaves out is ours.
  const layout = (
    kind: keyof NonNullable<ProviderProfile["bodies"]>,
    fields: Record<string, string>,
    main: string,
    convert: Record<string, Convert>,
  ) => {
    const given = file?.bodies?.[kind];
    const passthrough = (given !== undefined && "passthrough" in given ? given.passthrough : undefined) as
      Readonly<Record<string, string>> | undefined;
    return compileLayout({
      newUuid,
      fields: { ...passthrough, ...fields },
      main,
      keepUnnamed: given === undefined,
      convert,
      extras: kind === "webhook" ? webhookExtras : extras(kind),
      containers: given?.containers,
    });
  };
  return {
    order: layout("order", bodies.order, "id", statuses.order),
    lookup: layout("lookup", bodies.lookup, "id", record),
    webhook: layout("webhook", { ...bodies.webhook, type: event.pointer }, "id", {
      ...record,
      ...eventConvert,
      ...(money === "string" ? { balance: moneyString } : {}),
    }),
    balance: layout("balance", bodies.balance, "amount", {
      ...moneyConvert,
      ...(money === "string" ? { wallets: walletsMoneyString } : {}),
      // A kept `status` is the answer's Success from the order statuses' table: the dialect's, as a record writes it.
      ...(statuses.record.status === undefined ? {} : { status: statuses.record.status }),
    }),
    errorLayout: layout("error", { code: bodies.error.code, detail: bodies.error.message }, "code", {}),
  };
}

function isSpecError(pointers: { readonly code: string; readonly message: string }): boolean {
  return pointers.code === "/code" && pointers.message === "/detail";
}

/** Copies `from`'s members into `into`, object members merged: two layouts' halves of one body. */
function mergeInto(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  for (const key in from) {
    const mine = into[key];
    const theirs = from[key];
    if (typeof mine === "object" && mine !== null && typeof theirs === "object" && theirs !== null) {
      mergeInto(mine as Record<string, unknown>, theirs as Record<string, unknown>);
    } else {
      into[key] = theirs;
    }
  }
  return into;
}
