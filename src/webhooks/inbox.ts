/**
 * The package's one webhook receiver, a small real HTTP server: it verifies
 * every request (Standard Webhooks, or the scheme of a provider profile),
 * rejects bad ones with 400, dedupes on the delivery id, records what it
 * accepted, lets callers wait for what they expect, and answers with a
 * status a test can program (to exercise the sender's retries). The test
 * inbox, `listen`, `compare` and the contract harness all receive through it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CompiledProfile, OrderFields } from "../contract/provider-profile/compile.ts";
import type { SignatureVerifier } from "../contract/provider-profile/signing.ts";
import { verifiedPayload, type VerifyOutcome } from "../contract/signing.ts";
import { type WebhookPayload, WebhookPayloadSchema } from "../contract/webhook-schemas.ts";
import { flattenHeaders } from "./incoming-request.ts";
import { closeServer, createWebhookServer, type LocalServerOptions, listenOn } from "./local-server.ts";
import { verifyDialect, verifyWebhook } from "./signing.ts";

/** What the inbox answers: a status, a full reply, or `"hang"` (never answer; the sender times out). */
export type InboxReply =
  | number
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string }
  | "hang";

/** Facts about a verified request, for a programmable reply. */
export interface InboxRequestInfo {
  readonly webhookId: string;
  /** 1 for the first request carrying this `webhook-id`, 2 for the next, … */
  readonly attempt: number;
  readonly payload: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export type InboxResponder = InboxReply | ((request: InboxRequestInfo) => InboxReply);

/** A verified message the inbox accepted (answered 2xx), recorded once per `webhook-id`. */
export interface InboxDelivery {
  readonly webhookId: string;
  /** Wall-clock ms when it arrived. */
  readonly receivedAt: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly payload: unknown;
  /** The payload when it conforms to the airtime webhook schema. */
  readonly webhook?: WebhookPayload;
  /** With a provider profile: the order as its webhook body shows it (status translated to a code of its table). */
  readonly order?: OrderFields;
  readonly verified: true;
  /** Which request for this `webhook-id` was accepted (1 = the first). */
  readonly attempt: number;
}

/** A request that failed verification (answered 400, never recorded as a delivery). */
export interface InboxRejection {
  readonly receivedAt: number;
  readonly path: string;
  readonly webhookId?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly reason: string;
  /** With a provider profile: the order the unverified body names, so a failure can be told to the one waiting for it. */
  readonly order?: OrderFields;
}

/** Every request, in arrival order, with what the inbox answered. */
export interface InboxRequestRecord {
  readonly receivedAt: number;
  readonly webhookId?: string;
  readonly verified: boolean;
  /** The status answered; null when the inbox hung up on it. */
  readonly status: number | null;
  readonly duplicate: boolean;
}

export interface WebhookInboxOptions extends LocalServerOptions {
  /** The `whsec_` secret to verify with. */
  readonly secret?: string;
  /** Several secrets (rotation): a request is valid when any of them verifies it. */
  readonly secrets?: readonly string[];
  /** Initial reply for verified requests; default 200. */
  readonly respond?: InboxResponder;
  /** The provider's dialect the sender speaks: its scheme verifies, its delivery id dedupes, its body is read. */
  readonly provider?: CompiledProfile | undefined;
  /** Verifies every request instead of the secrets (e.g. accepting unsigned ones where no scheme is known). */
  readonly verifier?: SignatureVerifier | undefined;
  /**
   * A verified request with no delivery id where the profile puts it:
   * `"reject"` (default) answers 400; `"arrival"` accepts it under its
   * arrival number, for a provider that sends no id (it is never deduped).
   */
  readonly unidentified?: "reject" | "arrival";
  readonly onDelivery?: (delivery: InboxDelivery) => void;
  readonly onRejected?: (rejection: InboxRejection) => void;
}

export interface WaitForOptions {
  /** Only a delivery with this status code counts. */
  readonly status?: number;
  /** Default 5000 ms (wall clock). */
  readonly timeoutMs?: number;
}

export interface WebhookInbox {
  /** Starts listening; resolves with the receiver's URL. */
  listen(): Promise<string>;
  /** The URL (after `listen()`), e.g. `http://127.0.0.1:41234/webhooks`. */
  readonly url: string;
  /** Changes how verified requests are answered from now on. */
  respondWith(responder: InboxResponder): void;
  /** Resolves with the first verified delivery for `reference` (and `status`, if given). */
  waitFor(reference: string, options?: WaitForOptions): Promise<InboxDelivery>;
  /** Resolves once `predicate` holds over the accepted deliveries. */
  waitUntil(predicate: (deliveries: readonly InboxDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Accepted deliveries, one per `webhook-id`, in arrival order. */
  deliveries(): readonly InboxDelivery[];
  rejected(): readonly InboxRejection[];
  requests(): readonly InboxRequestRecord[];
  /** How many verified requests repeated an already accepted `webhook-id`. */
  duplicates(): number;
  /** Forgets everything received (the reply and the secrets stay). */
  clear(): void;
  /** Stops listening and drops open connections (hanging requests included). */
  close(): Promise<void>;
}

const DEFAULT_WAIT_MS = 5000;

const WEBHOOK_PATH = "/webhooks";

/**
 * Creates a webhook receiver on a real port.
 *
 * @example
 * const inbox = createWebhookInbox({ secret: "whsec_…" });
 * const url = await inbox.listen(); // point the customer's webhook here
 * inbox.respondWith(({ attempt }) => (attempt <= 2 ? 503 : 200)); // fail the first two
 * const delivery = await inbox.waitFor("ORDER-1", { status: 20 });
 * await inbox.close();
 */
export function createWebhookInbox(options: WebhookInboxOptions): WebhookInbox {
  const { secrets: rotated = [], secret, respond = 200 } = options;
  const secrets = [...rotated, ...(secret === undefined ? [] : [secret])];
  if (secrets.length === 0) throw new Error("createWebhookInbox needs a secret (or secrets)");
  const state: InboxState = {
    options,
    secrets,
    responder: respond,
    accepted: [],
    acceptedIds: new Set(),
    attemptsById: new Map(),
    rejections: [],
    requestLog: [],
    duplicateCount: 0,
    waiters: createWaiters(),
  };
  const { accepted, waiters } = state;
  let baseUrl: string | undefined;

  const server = createWebhookServer(options, (req, res, body, receivedAt) =>
    handle(state, req, res, body.toString("utf8"), receivedAt),
  );

  return {
    async listen() {
      baseUrl = `${await listenOn(server, options)}${WEBHOOK_PATH}`;
      return baseUrl;
    },
    get url() {
      if (baseUrl === undefined) throw new Error("webhook inbox: call listen() first");
      return baseUrl;
    },
    respondWith(next) {
      state.responder = next;
    },
    async waitFor(reference, waitOptions = {}) {
      const matches = (delivery: InboxDelivery) =>
        delivery.webhook?.reference === reference &&
        (waitOptions.status === undefined || delivery.webhook.status === waitOptions.status);
      const timeoutMs = waitOptions.timeoutMs ?? DEFAULT_WAIT_MS;
      await waiters.waitUntil(
        () => accepted.some(matches),
        timeoutMs,
        () => `reference ${reference}${waitOptions.status === undefined ? "" : ` with status ${waitOptions.status}`}`,
      );
      return accepted.find(matches) as InboxDelivery;
    },
    waitUntil(predicate, timeoutMs = DEFAULT_WAIT_MS) {
      return waiters.waitUntil(
        () => predicate(accepted),
        timeoutMs,
        () => `a condition (${accepted.length} deliveries so far)`,
      );
    },
    deliveries: () => [...accepted],
    rejected: () => [...state.rejections],
    requests: () => [...state.requestLog],
    duplicates: () => state.duplicateCount,
    clear() {
      accepted.length = 0;
      state.acceptedIds.clear();
      state.attemptsById.clear();
      state.rejections.length = 0;
      state.requestLog.length = 0;
      state.duplicateCount = 0;
    },
    close: () => closeServer(server),
  };
}

/**
 * Everything the inbox has heard and how it answers, in one object, so
 * the request handler is a function of its own rather than one more
 * closure inside the factory.
 */
interface InboxState {
  readonly options: WebhookInboxOptions;
  readonly secrets: readonly string[];
  responder: InboxResponder;
  readonly accepted: InboxDelivery[];
  readonly acceptedIds: Set<string>;
  readonly attemptsById: Map<string, number>;
  readonly rejections: InboxRejection[];
  readonly requestLog: InboxRequestRecord[];
  duplicateCount: number;
  readonly waiters: Waiters;
}

function handle(state: InboxState, req: IncomingMessage, res: ServerResponse, body: string, receivedAt: number): void {
  const { options, secrets } = state;
  const headers = flattenHeaders(req);
  const path = req.url ?? "/";
  const { provider } = options;
  const outcome = verify(options, secrets, body, headers);
  const payload = outcome.kind === "verified" ? outcome.payload : undefined;
  const webhookId =
    provider === undefined ? headers["webhook-id"] : (provider.deliveryId(headers, payload) ?? arrivalId(state));
  if (outcome.kind === "rejected" || webhookId === undefined) {
    const reason = outcome.kind === "rejected" ? outcome.reason : "no delivery id where the profile puts it";
    const order = provider?.readOrder("webhook", parseJson(body));
    const named = { ...(webhookId ? { webhookId } : {}), ...(order === undefined ? {} : { order }) };
    reject(state, res, { receivedAt, path, headers, body, reason, ...named });
    return;
  }
  // verifyWebhook only verifies with the three headers present.
  const id = webhookId;
  const attempt = (state.attemptsById.get(id) ?? 0) + 1;
  state.attemptsById.set(id, attempt);
  const { responder } = state;
  const answer =
    typeof responder === "function"
      ? responder({ webhookId: id, attempt, payload: outcome.payload, headers })
      : responder;
  if (answer === "hang") {
    // Never answered; the connection is dropped by close() or the sender's timeout.
    log(state, { receivedAt, webhookId: id, verified: true, status: null, duplicate: false });
    return;
  }
  const status = reply(res, answer);
  const ok = status >= 200 && status < 300;
  const duplicate = ok && state.acceptedIds.has(id);
  log(state, { receivedAt, webhookId: id, verified: true, status, duplicate });
  if (!ok) return;
  if (duplicate) {
    state.duplicateCount++;
    return;
  }
  state.acceptedIds.add(id);
  const parsed = WebhookPayloadSchema.safeParse(outcome.payload);
  const delivery: InboxDelivery = {
    webhookId: id,
    receivedAt,
    path,
    headers,
    body,
    payload: outcome.payload,
    ...(parsed.success ? { webhook: parsed.data } : {}),
    ...(provider === undefined ? {} : { order: provider.readOrder("webhook", outcome.payload) }),
    verified: true,
    attempt,
  };
  state.accepted.push(delivery);
  options.onDelivery?.(delivery);
  state.waiters.notify();
}

function verify(
  options: WebhookInboxOptions,
  secrets: readonly string[],
  body: string,
  headers: Readonly<Record<string, string>>,
): VerifyOutcome {
  const { provider, verifier } = options;
  if (verifier !== undefined) {
    const outcome = verifier.verify(body, headers);
    return outcome.kind === "rejected" ? outcome : verifiedPayload(body);
  }
  return provider === undefined
    ? verifyWebhook(body, headers, secrets)
    : verifyDialect(provider, secrets, body, headers);
}

/** The id of a request that carries none, when the inbox accepts such: its place in arrival order. */
function arrivalId(state: InboxState): string | undefined {
  return state.options.unidentified === "arrival" ? `arrival-${state.requestLog.length + 1}` : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function log(state: InboxState, record: InboxRequestRecord): void {
  state.requestLog.push(record);
  state.waiters.notify();
}

function reply(res: ServerResponse, answer: Exclude<InboxReply, "hang">): number {
  const spec = typeof answer === "number" ? { status: answer } : answer;
  res.writeHead(spec.status, { "content-type": "text/plain; charset=utf-8", ...spec.headers });
  res.end(spec.body ?? "");
  return spec.status;
}

function reject(state: InboxState, res: ServerResponse, rejection: InboxRejection): void {
  state.rejections.push(rejection);
  log(state, {
    receivedAt: rejection.receivedAt,
    ...(rejection.webhookId === undefined ? {} : { webhookId: rejection.webhookId }),
    verified: false,
    status: 400,
    duplicate: false,
  });
  state.options.onRejected?.(rejection);
  reply(res, { status: 400, body: `rejected: ${rejection.reason}` });
}

interface Waiter {
  readonly check: () => boolean;
  readonly resolve: () => void;
}

/**
 * The tests waiting on the inbox: each is checked again whenever a request
 * is logged or a delivery accepted, and fails with what it waited for
 * once its wall-clock timeout passes.
 */
interface Waiters {
  notify(): void;
  waitUntil(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void>;
}

function createWaiters(): Waiters {
  let waiters: Waiter[] = [];
  return {
    notify() {
      if (waiters.length === 0) return;
      const pending: Waiter[] = [];
      for (const waiter of waiters) {
        if (waiter.check()) waiter.resolve();
        else pending.push(waiter);
      }
      waiters = pending;
    },
    waitUntil(check, timeoutMs, describe) {
      if (check()) return Promise.resolve();
      return new Promise((resolve, rejectWait) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== entry);
          rejectWait(new Error(`webhook inbox: timed out after ${timeoutMs} ms waiting for ${describe()}`));
        }, timeoutMs);
        const entry: Waiter = {
          check,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        waiters.push(entry);
      });
    },
  };
}
