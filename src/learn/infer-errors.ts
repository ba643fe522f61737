/**
 * The error body, HTTP statuses and codes, from refusals that cost nothing.
 * The error code's pointer is where `idempotency_payload_mismatch` (fixed by
 * §4.4 and §7) was found in the 409 for the same key with another amount;
 * its message is the text beside it. Each other refusal gives its HTTP
 * status and, at that pointer, its code.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { HttpResponse } from "../harness/http-client.ts";
import { byName, createFindingLog, type Finding } from "./inference.ts";
import { leavesOf, pointersOfText, valueAt } from "./json-leaves.ts";
import type { Observations, RefusalKind } from "./probe-target.ts";

const MISMATCH_CODE = "idempotency_payload_mismatch";

type ErrorSections = Pick<ProviderProfile, "http" | "errorCodes"> & {
  errorBody?: NonNullable<ProviderProfile["bodies"]>["error"];
};

const WHAT: Record<Exclude<RefusalKind, "mismatch">, string> = {
  unauthorized: "GET /v1/balance without a token",
  notFound: "a lookup of a reference never placed",
  wrongMethod: "DELETE /v1/airtime",
  invalidInput: "an order without its currency (§2.1 requires it)",
  insufficient: "an order one shilling beyond the second customer's balance",
};

/** The text beside the code in the same object: the error's message. */
function messagePointer(body: unknown, code: string): string | undefined {
  const parent = code.slice(0, code.lastIndexOf("/"));
  const siblings = leavesOf(body).filter(
    (leaf) =>
      leaf.pointer !== code &&
      typeof leaf.value === "string" &&
      leaf.pointer.startsWith(`${parent}/`) &&
      !leaf.pointer.slice(parent.length + 1).includes("/"),
  );
  return byName(
    siblings.map((leaf) => leaf.pointer),
    /message|detail|description|hint|text|reason/i,
  )[0];
}

export function inferErrors(observations: Observations, orderIdPointer: string | undefined): Finding<ErrorSections> {
  const log = createFindingLog();
  const sections: ErrorSections = {};
  const mismatch = observations.refusals.mismatch;
  const code = mismatch === undefined ? undefined : pointersOfText(mismatch.json, MISMATCH_CODE)[0];
  if (mismatch === undefined || mismatch.status !== 409 || code === undefined) {
    log.miss(`the error body: the same key with another amount did not answer 409 ${MISMATCH_CODE}`);
  } else {
    const message = messagePointer(mismatch.json, code);
    sections.errorBody = { code, ...(message === undefined ? {} : { message }) };
    log.note(
      ["bodies", "error", "code"],
      `${MISMATCH_CODE} was found here in the 409 for the same key, another amount`,
    );
    if (message !== undefined) log.note(["bodies", "error", "message"], "the text beside the code");
  }
  const http: NonNullable<ProviderProfile["http"]> = {};
  const codes: NonNullable<ProviderProfile["errorCodes"]> = {};
  for (const kind of Object.keys(WHAT) as (keyof typeof WHAT)[]) {
    const answer = observations.refusals[kind];
    const field = kind === "insufficient" ? "insufficientBalance" : kind;
    if (answer === undefined || !isRefusal(answer, kind, orderIdPointer)) {
      log.miss(`http.${field}: ${WHAT[kind]} was ${answer === undefined ? "not sent" : `answered ${answer.status}`}`);
      continue;
    }
    http[field] = answer.status;
    log.note(["http", field], `${WHAT[kind]} answered ${answer.status}`);
    const found = code === undefined ? undefined : valueAt(answer.json, code);
    if (typeof found === "string" && field !== "wrongMethod") {
      codes[field] = found;
      log.note(["errorCodes", field], `found at the error code's pointer in the answer to ${WHAT[kind]}`);
    }
  }
  if (Object.keys(http).length > 0) sections.http = http;
  if (Object.keys(codes).length > 0) sections.errorCodes = codes;
  return log.finding(sections);
}

/** A 4xx, or for an order beyond the balance also a 200 without an order id (a failed order, §7). */
function isRefusal(answer: HttpResponse, kind: RefusalKind, orderIdPointer: string | undefined): boolean {
  if (answer.status >= 400 && answer.status < 500) return true;
  return (
    kind === "insufficient" &&
    answer.status === 200 &&
    orderIdPointer !== undefined &&
    valueAt(answer.json, orderIdPointer) === undefined
  );
}
