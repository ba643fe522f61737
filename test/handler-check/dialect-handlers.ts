/**
 * Webhook handlers written for the word-statuses-hmac example provider, as
 * an integrator of that provider would write them: HMAC-SHA256 of
 * "<X-Timestamp>.<body>" in X-Signature ("sha256=…"), the delivery id in
 * X-Delivery-Id, the order under /transaction with its status as a word, and
 * the word stored as is (`GET /orders/{reference}` → `{status: "COMPLETED",
 * credits}`). One correct, and one per defect. No code of the project is
 * used to verify: node:crypto, as the integrator would.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ExampleHandler, readRaw, serveHandler } from "./example-handlers.ts";

export const DIALECT_DEFECTS = ["skips_hmac_check", "last_write_wins"] as const;
export type DialectDefect = (typeof DIALECT_DEFECTS)[number];

const TOLERANCE_SECONDS = 5 * 60;
const PENDING = "PENDING";

interface Believed {
  status: string;
  credits: number;
}

interface Transaction {
  readonly ref: string;
  readonly status: string;
}

function authentic(secret: string, body: string, headers: Record<string, string | undefined>): boolean {
  const timestamp = Number(headers["x-timestamp"]);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`);
  const given = Buffer.from(headers["x-signature"] ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The next stored word, or undefined when the event must change nothing. */
function nextStatus(current: Believed | undefined, status: string, defect: DialectDefect | undefined) {
  if (defect === "last_write_wins" || current === undefined || current.status === PENDING) return status;
  // A final status only ever moves from COMPLETED to REVERSED.
  return current.status === "COMPLETED" && status === "REVERSED" ? status : undefined;
}

/**
 * @example
 * const handler = await startDialectHandler("s3cret", "skips_hmac_check");
 */
export async function startDialectHandler(secret: string, defect?: DialectDefect): Promise<ExampleHandler> {
  const orders = new Map<string, Believed>();
  const handled = new Set<string>();

  function apply(deliveryId: string, transaction: Transaction): void {
    if (handled.has(deliveryId)) return;
    handled.add(deliveryId);
    const current = orders.get(transaction.ref);
    const status = nextStatus(current, transaction.status, defect);
    if (status === undefined) return;
    const credited = status !== PENDING && (current === undefined || current.status === PENDING);
    orders.set(transaction.ref, { status, credits: (current?.credits ?? 0) + (credited ? 1 : 0) });
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://handler");
    if (req.method !== "POST" || url.pathname !== "/webhooks") {
      res.writeHead(404).end();
      return;
    }
    const body = await readRaw(req);
    const headers = req.headers as Record<string, string | undefined>;
    if (defect !== "skips_hmac_check" && !authentic(secret, body, headers)) {
      res.writeHead(401).end("invalid signature");
      return;
    }
    const { transaction } = JSON.parse(body) as { transaction: Transaction };
    apply(headers["x-delivery-id"] ?? "", transaction);
    res.writeHead(200).end("ok");
  }

  return serveHandler(onRequest, (reference) => orders.get(reference), 400);
}
