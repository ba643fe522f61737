/**
 * A webhook forwarder: receives each attempt a sender makes, checks its
 * signature (to report it, never to filter), passes the same body bytes and
 * `webhook-*` headers on to the handler under test, and answers the sender
 * with the handler's status, so the sender's retries follow the handler.
 *
 * Nothing is deduplicated: a handler's own dedupe on `webhook-id` is part of
 * what is under test, so it sees every retry and every duplicate.
 */
import type { ServerResponse } from "node:http";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { type WebhookPayload, WebhookPayloadSchema } from "../contract/webhook-schemas.ts";
import { flattenHeaders } from "./incoming-request.ts";
import { closeServer, createWebhookServer, type LocalServerOptions, listenOn, wallClock } from "./local-server.ts";
import { type PostResult, postWebhook } from "./post-webhook.ts";
import { verifyDialect, type VerifyOutcome, verifyWebhook } from "./signing.ts";

/** What the sender gets when the handler cannot be reached, or does not answer in time. */
const HANDLER_UNREACHABLE_STATUS = 502;
const HANDLER_TIMEOUT_STATUS = 504;
const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

/** Request headers the handler gets; the rest (host, connection, length) belong to this hop. */
const FORWARDED_HEADER = /^(webhook-.+|content-type|user-agent)$/;

/** One attempt as it passed through. */
export interface ForwardedAttempt {
  /** Wall-clock ms when it arrived. */
  readonly receivedAt: number;
  readonly webhookId: string | undefined;
  /** The signature check with the forwarder's secrets; a rejected one is forwarded all the same. */
  readonly verification: VerifyOutcome;
  /** The payload when it conforms to the airtime webhook schema. */
  readonly webhook: WebhookPayload | undefined;
  /** What the handler did: its answer, or why there was none (`connection_refused`, `timeout`, …). */
  readonly handler: PostResult;
  /** The status the sender was answered with. */
  readonly answered: number;
}

export interface WebhookForwarderOptions extends LocalServerOptions {
  /** The handler under test (already checked with `parseForwardTarget`). */
  readonly target: string;
  /** Secrets to check signatures with (rotation: any may verify). */
  readonly secrets: readonly string[];
  /** How long the handler may take; default 10 s, then the sender gets a 504. */
  readonly timeoutMs?: number;
  readonly onAttempt?: (attempt: ForwardedAttempt) => void;
  /** The provider's dialect the sender speaks: its signature is checked, and its headers passed on. */
  readonly provider?: CompiledProfile | undefined;
}

export interface WebhookForwarder {
  /** Starts listening; resolves with the URL to point the sender at. */
  listen(): Promise<string>;
  /** Every attempt so far, in the order the handler answered. */
  attempts(): readonly ForwardedAttempt[];
  /** Stops listening; attempts in flight are dropped. */
  close(): Promise<void>;
}

/** The answer the sender gets for what the handler did. */
function answerFor(handler: PostResult): number {
  if (handler.kind === "response") return handler.status;
  return handler.error === "timeout" ? HANDLER_TIMEOUT_STATUS : HANDLER_UNREACHABLE_STATUS;
}

function forwardedHeaders(
  headers: Readonly<Record<string, string>>,
  dialectHeaders: ReadonlySet<string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => FORWARDED_HEADER.test(name) || dialectHeaders.has(name)),
  );
}

/** The headers a profile signs and identifies a delivery with, lower-cased. */
function headersOf(provider: CompiledProfile | undefined): ReadonlySet<string> {
  if (provider === undefined) return new Set();
  const { signing, deliveryId } = provider.resolved;
  const names = "header" in deliveryId ? [deliveryId.header] : [];
  if (signing.scheme === "hmac")
    names.push(signing.header, ...(signing.timestampHeader === undefined ? [] : [signing.timestampHeader]));
  return new Set(names.map((name) => name.toLowerCase()));
}

function payloadOf(verification: VerifyOutcome, body: Buffer): WebhookPayload | undefined {
  let payload: unknown;
  if (verification.kind === "verified") payload = verification.payload;
  else {
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return undefined;
    }
  }
  const parsed = WebhookPayloadSchema.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

function answer(res: ServerResponse, handler: PostResult, status: number): void {
  const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
  if (handler.kind === "response" && handler.retryAfterMs !== undefined) {
    headers["retry-after"] = String(Math.ceil(handler.retryAfterMs / 1000));
  }
  res.writeHead(status, headers);
  res.end(
    handler.kind === "response"
      ? `forwarded: the handler answered ${handler.status}`
      : `forwarded: the handler could not be reached (${handler.error})`,
  );
}

/**
 * @example
 * const forwarder = createWebhookForwarder({ target: "http://localhost:3000/webhooks", secrets: [secret] });
 * const url = await forwarder.listen(); // point the customer's webhook here
 * // each attempt: verified, forwarded, answered with the handler's status
 * await forwarder.close();
 */
export function createWebhookForwarder(options: WebhookForwarderOptions): WebhookForwarder {
  const { now = wallClock, timeoutMs = DEFAULT_FORWARD_TIMEOUT_MS } = options;
  const closing = new AbortController();
  const seen: ForwardedAttempt[] = [];
  const { provider } = options;
  const dialectHeaders = headersOf(provider);

  async function forward(headers: Record<string, string>, body: Buffer, receivedAt: number, res: ServerResponse) {
    const text = body.toString("utf8");
    const verification =
      provider === undefined
        ? verifyWebhook(text, headers, options.secrets)
        : verifyDialect(provider, options.secrets, text, headers);
    const handler = await postWebhook({
      url: options.target,
      headers: forwardedHeaders(headers, dialectHeaders),
      body,
      timeoutMs,
      signal: closing.signal,
      wallNow: now,
    });
    const answered = answerFor(handler);
    const attempt: ForwardedAttempt = {
      receivedAt,
      webhookId:
        provider === undefined
          ? headers["webhook-id"]
          : provider.deliveryId(headers, verification.kind === "verified" ? verification.payload : undefined),
      verification,
      webhook: payloadOf(verification, body),
      handler,
      answered,
    };
    seen.push(attempt);
    options.onAttempt?.(attempt);
    answer(res, handler, answered);
  }

  const server = createWebhookServer(options, (req, res, body, receivedAt) =>
    forward(flattenHeaders(req), body, receivedAt, res),
  );

  return {
    async listen() {
      return `${await listenOn(server, options)}/webhooks`;
    },
    attempts: () => [...seen],
    close() {
      closing.abort();
      return closeServer(server);
    },
  };
}
