/**
 * Webhook handlers as integrators write them, each a small real node:http
 * app on its own port with a state endpoint (`GET /orders/{reference}` →
 * `{status, credits}`): one correct, and one per classic defect. Given where
 * the simulator's lookup is, a handler also reconciles: `POST /reconcile`
 * with `{references}` looks each order up and applies its final status.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import {
  DEFAULT_HANDLER_CHECK_RUNS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_ORDERS,
  type HandlerCheckOptions,
} from "../../src/handler-check/check-handler.ts";

export const DEFECTS = [
  "applies_duplicates_twice",
  "last_write_wins",
  "skips_signature_check",
  "accepts_stale_timestamps",
  "fails_unknown_orders_forever",
  "success_overwrites_reversed",
] as const;
export type Defect = (typeof DEFECTS)[number];

/** Where a reconciling handler looks orders up, as its configuration would say. */
export interface Lookup {
  readonly simulatorUrl: string;
  readonly token: string;
}

export interface ExampleHandler {
  /** Where webhooks go. */
  readonly webhookUrl: string;
  /** The state endpoint, with `{reference}`. */
  readonly stateTemplate: string;
  /** `POST {references}` here to make it look its orders up (404 unless it was given a lookup). */
  readonly reconcileUrl: string;
  close(): Promise<void>;
}

interface Believed {
  status: number;
  final: boolean;
  credits: number;
}

interface Event {
  readonly reference: string;
  readonly status: number;
  readonly final: boolean;
}

const SUCCESS = 20;
const REVERSED = 8;

export function readRaw(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The signature alone, the timestamp never looked at: what a hand-rolled HMAC check often does. */
function signatureHolds(webhook: Webhook, body: string, headers: Record<string, string>): boolean {
  const id = headers["webhook-id"] ?? "";
  const at = new Date(Number(headers["webhook-timestamp"]) * 1000);
  if (Number.isNaN(at.getTime())) return false;
  const expected = webhook.sign(id, at, body);
  return (headers["webhook-signature"] ?? "").split(" ").includes(expected);
}

function verified(webhook: Webhook, defect: Defect | undefined, body: string, headers: Record<string, string>) {
  try {
    if (defect === "skips_signature_check") return JSON.parse(body) as Event;
    if (defect === "accepts_stale_timestamps")
      return signatureHolds(webhook, body, headers) ? (JSON.parse(body) as Event) : undefined;
    return webhook.verify(body, headers) as Event;
  } catch {
    return undefined;
  }
}

/** The order's next belief, or undefined when the event must change nothing. */
function nextStatus(current: Believed | undefined, event: Event, defect: Defect | undefined): number | undefined {
  if (defect === "last_write_wins" || current === undefined) return event.status;
  if (!event.final) return current.final ? undefined : event.status;
  if (!current.final) return event.status;
  if (defect === "success_overwrites_reversed") return event.status;
  // A final status only ever moves from Success to Reversed.
  return current.status === SUCCESS && event.status === REVERSED ? REVERSED : undefined;
}

/**
 * @example
 * const handler = await startExampleHandler(secret, "last_write_wins");
 * // handler-check --handler handler.webhookUrl --state handler.stateTemplate --state-status /status --effects /credits
 */
export async function startExampleHandler(secret: string, defect?: Defect, lookup?: Lookup): Promise<ExampleHandler> {
  const webhook = new Webhook(secret);
  const orders = new Map<string, Believed>();
  const handled = new Set<string>();
  const failing = new Set<string>();

  function apply(webhookId: string, event: Event): number {
    if (defect !== "applies_duplicates_twice" && handled.has(webhookId)) return 204;
    if (defect === "fails_unknown_orders_forever" && (failing.has(event.reference) || !orders.has(event.reference))) {
      // It expected to have placed the order itself, and keeps failing on it.
      failing.add(event.reference);
      return 500;
    }
    const current = orders.get(event.reference);
    const status = nextStatus(current, event, defect);
    // The defect credits every final message it gets, whether or not it changed anything.
    const credited = event.final && (status !== undefined || defect === "applies_duplicates_twice");
    if (status !== undefined || credited) {
      orders.set(event.reference, {
        status: status ?? (current as Believed).status,
        final: status === undefined ? (current as Believed).final : event.final,
        credits: (current?.credits ?? 0) + (credited ? 1 : 0),
      });
    }
    handled.add(webhookId);
    return 204;
  }

  /** Applies what the simulator's lookup says, as if its final webhook had arrived. */
  async function reconcile(references: readonly string[], from: Lookup): Promise<void> {
    for (const reference of references) {
      const response = await fetch(`${from.simulatorUrl}/v1/airtime/${encodeURIComponent(reference)}`, {
        headers: { authorization: `Bearer ${from.token}` },
      });
      const order = (await response.json()) as { status: number };
      const final = ![0, 3, 31, 100, 101].includes(order.status);
      if (response.ok && final)
        apply(`lookup-${reference}-${order.status}`, { reference, status: order.status, final });
    }
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://handler");
    if (req.method === "POST" && url.pathname === "/reconcile" && lookup !== undefined) {
      const { references } = JSON.parse(await readRaw(req)) as { references: string[] };
      await reconcile(references, lookup);
      res.writeHead(204).end();
      return;
    }
    if (req.method !== "POST" || url.pathname !== "/webhooks") {
      res.writeHead(404).end();
      return;
    }
    const body = await readRaw(req);
    const headers = req.headers as Record<string, string>;
    const event = verified(webhook, defect, body, headers);
    if (event === undefined) {
      res.writeHead(400).end("invalid signature");
      return;
    }
    res.writeHead(apply(headers["webhook-id"] ?? "", event)).end();
  }

  const stateOf = (reference: string) => {
    const believed = orders.get(reference);
    return believed === undefined ? undefined : { status: believed.status, credits: believed.credits };
  };
  return serveHandler(onRequest, stateOf, 500);
}

/**
 * A handler app on a free port: `stateOf` answers GET /orders/{reference}
 * (404 when undefined), `onRequest` the rest; a thrown error answers `errorStatus`.
 */
export async function serveHandler(
  onRequest: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  stateOf: (reference: string) => object | undefined,
  errorStatus: number,
): Promise<ExampleHandler> {
  const server = createServer((req, res) => {
    const state = /^\/orders\/([^/?]+)/.exec(req.url ?? "");
    if (req.method === "GET" && state !== null) {
      const believed = stateOf(decodeURIComponent(state[1] as string));
      res.writeHead(believed === undefined ? 404 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(believed ?? { error: "unknown order" }));
      return;
    }
    onRequest(req, res).catch(() => res.writeHead(errorStatus).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    webhookUrl: `${base}/webhooks`,
    stateTemplate: `${base}/orders/{reference}`,
    reconcileUrl: `${base}/reconcile`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** handler-check's defaults aimed at an example handler: its webhooks, its state, its credits as effects. */
export function checkOptionsFor(handler: ExampleHandler, secret: string, referencePrefix: string): HandlerCheckOptions {
  return {
    handlerUrl: handler.webhookUrl,
    secret,
    state: { kind: "url", template: handler.stateTemplate },
    statusPointer: "/status",
    effectsPointer: "/credits",
    runs: DEFAULT_HANDLER_CHECK_RUNS,
    timeoutMs: DEFAULT_HANDLER_TIMEOUT_MS,
    maxOrders: DEFAULT_MAX_ORDERS,
    referencePrefix,
  };
}
