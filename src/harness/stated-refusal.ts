/**
 * How a provider refuses, as far as its profile states it. The interface
 * leaves the HTTP statuses and error codes of refusals open (§7), so under
 * `interface` a refusal is judged by what the profile's `http` and
 * `errorCodes` sections state, and only by that: a status or code the file
 * leaves out is free. Our spec's defaults never count here; they are what
 * `strict` judges.
 */
import type { CompiledProfile, OrderBodyKind } from "../contract/provider-profile/compile.ts";

export type RefusalKind = "invalidInput" | "unauthorized" | "insufficientBalance" | "notFound" | "wrongMethod";

export interface StatedRefusal {
  readonly status: number | undefined;
  readonly code: string | undefined;
}

/** The status and code the profile states for a refusal; a profile names no code for a wrong method. */
export function statedRefusal(provider: CompiledProfile, kind: RefusalKind): StatedRefusal {
  return {
    status: provider.given.http ? provider.resolved.http[kind] : undefined,
    code: provider.given.errorCodes && kind !== "wrongMethod" ? provider.resolved.errorCodes[kind] : undefined,
  };
}

/**
 * What is wrong with an answer that should be this refusal, or undefined
 * when it is one: the stated status and code where given; otherwise any
 * 4xx, or (`failedOrderCounts`) an HTTP 200 without an id, the interface's
 * own failed order (§7).
 *
 * @example
 * refusalMismatch({ status: 422, code: undefined }, { status: 400, code: "bad", hasId: false }); // "expected HTTP 422, got HTTP 400 bad"
 */
export function refusalMismatch(
  stated: StatedRefusal,
  answer: { readonly status: number; readonly code: string | undefined; readonly hasId: boolean },
  failedOrderCounts = false,
): string | undefined {
  const got = `got HTTP ${answer.status}${answer.code === undefined ? "" : ` ${answer.code}`}`;
  if (answer.status >= 200 && answer.status < 300 && answer.hasId) return `an order was placed (${got} with an id)`;
  if (stated.status !== undefined && answer.status !== stated.status) return `expected HTTP ${stated.status}, ${got}`;
  const refused =
    (answer.status >= 400 && answer.status < 500) || (failedOrderCounts && answer.status === 200 && !answer.hasId);
  if (stated.status === undefined && !refused) {
    return `expected a refusal (a 4xx${failedOrderCounts ? " or a failed order without an id" : ""}), ${got}`;
  }
  if (stated.code !== undefined && answer.code !== stated.code) return `expected error code ${stated.code}, ${got}`;
  return undefined;
}

/**
 * `refusalMismatch` for an HTTP answer read through the profile: its error
 * code at the error pointer, its id where `body` (the send answer or the
 * lookup) keeps one.
 */
export function answerRefusalMismatch(
  provider: CompiledProfile,
  kind: RefusalKind,
  answer: { readonly status: number; readonly json: unknown },
  body: OrderBodyKind,
  failedOrderCounts = false,
): string | undefined {
  return refusalMismatch(
    statedRefusal(provider, kind),
    {
      status: answer.status,
      code: provider.readErrorCode(answer.json),
      hasId: provider.readOrder(body, answer.json).id !== undefined,
    },
    failedOrderCounts,
  );
}
