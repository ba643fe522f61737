/**
 * Deliberately broken targets, built only here, in the harness's tests, to
 * prove each check can fail: the correct simulator with one defect switched
 * on — through a plugin (`createSimulator({plugins})`), a response-rewriting
 * proxy in front of it, or a proxy between it and the webhook receiver.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { CheckName } from "../../src/harness/checks.ts";
import { freePort } from "../../src/harness/child-process.ts";
import type { ContractOptions } from "../../src/harness/contract-options.ts";
import type { PropertyName } from "../../src/harness/property.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorPluginFactory } from "../../src/domain/plugin-port.ts";
import { changeWallet } from "../support/wallet-change.ts";
import { jsonOf, type ProxiedResponse, startRewritingProxy } from "./rewriting-proxy.ts";

export const DEFECTS = {
  double_debit_on_retry: { check: "no_double_charge", property: "model" },
  new_id_on_replay: { check: "idempotent_replay", property: "model" },
  accept_payload_mismatch: { check: "payload_mismatch_rejected", property: "model" },
  webhook_status_differs: { check: "webhook_matches_lookup", property: "model" },
  status_regresses: { check: "status_monotonic", property: "model" },
  other_customer_visible: { check: "customer_isolation", property: "isolation" },
  server_error_on_malformed_json: { check: "never_server_error", property: "negative-input" },
  missing_id_on_success: { check: "response_schema_conformance", property: "model" },
  bad_webhook_signature: { check: "webhook_signature_valid", property: "model" },
  replay_answered_201: { check: "status_code_conformance", property: "model" },
  problem_as_plain_json: { check: "content_type_conformance", property: "status-codes" },
  lookup_reports_other_amount: { check: "lookup_consistent", property: "model" },
  webhook_swallowed: { check: "webhook_delivered", property: "model" },
  wrong_token_accepted: { check: "auth_required", property: "auth" },
  invalid_body_accepted: { check: "negative_input_rejected", property: "negative-input" },
} as const satisfies Record<string, { check: CheckName; property: PropertyName }>;

export type Defect = keyof typeof DEFECTS;

export interface BrokenTarget {
  /** How to point the harness at it (merged into the run's options). */
  readonly options: ContractOptions;
  close(): Promise<void>;
}

const TIMING_MS = 2000;
const DEMO_TOKEN = "demo-token-for-broken-targets";

export async function startBrokenTarget(defect: Defect): Promise<BrokenTarget> {
  switch (defect) {
    case "double_debit_on_retry":
      return { options: { simulator: { plugins: [doubleDebitPlugin] } }, close: async () => {} };
    case "webhook_status_differs":
    case "bad_webhook_signature":
    case "webhook_swallowed":
      return brokenWebhooks(defect);
    case "new_id_on_replay":
    case "accept_payload_mismatch":
    case "status_regresses":
    case "other_customer_visible":
    case "server_error_on_malformed_json":
    case "missing_id_on_success":
    case "replay_answered_201":
    case "problem_as_plain_json":
    case "lookup_reports_other_amount":
    case "wrong_token_accepted":
    case "invalid_body_accepted":
      return brokenApi(defect);
    default:
      return assertNever(defect);
  }
}

/** A second debit whenever a request reuses an idempotency key the customer sent before. */
const doubleDebitPlugin: SimulatorPluginFactory = (context) => {
  const seen = new Set<string>();
  return {
    name: "defect-double-debit",
    scenarios: {
      async evaluate(facts) {
        if (facts.idempotencyKey !== undefined) {
          const key = `${facts.customerId}\u0000${facts.idempotencyKey}`;
          if (seen.has(key)) await changeWallet(context.store, facts.customerId, null, -facts.amountCents);
          seen.add(key);
        }
        return { fired: [] };
      },
    },
  };
};

type WebhookDefect = "webhook_status_differs" | "bad_webhook_signature" | "webhook_swallowed";
type ApiDefect = Exclude<Defect, "double_debit_on_retry" | WebhookDefect>;

/** The simulator behind a proxy that breaks one promise of the public API. */
async function brokenApi(defect: ApiDefect): Promise<BrokenTarget> {
  const sim = await createSimulator({
    clock: "virtual",
    seed: 1,
    timing: { kind: "fixed", ms: TIMING_MS },
    demo: { token: DEMO_TOKEN },
  });
  const url = await sim.listen(0, "127.0.0.1");
  let forged = 0;
  const finalSeen = new Set<string>();
  const tokens = new Set<string>();
  const proxy = await startRewritingProxy(url, async (req, forward) => {
    const isOrder = req.method === "POST" && req.path === "/v1/airtime";
    const lookup = req.method === "GET" ? /^\/v1\/airtime\/([^/?]+)/.exec(req.path)?.[1] : undefined;
    if (req.headers.authorization !== undefined) tokens.add(req.headers.authorization);
    switch (defect) {
      case "server_error_on_malformed_json":
        if (isOrder && jsonOf(req.body) === undefined && !/^\s*\[/.test(req.body)) {
          return problem(500, "internal_error", "Internal error");
        }
        return forward();
      case "new_id_on_replay": {
        const res = await forward();
        if (isOrder && res.headers["idempotent-replayed"] === "true") {
          return rewriteJson(res, (body) => ({ ...body, id: `ord_forged${++forged}` }));
        }
        return res;
      }
      case "accept_payload_mismatch": {
        const res = await forward();
        const body = jsonOf(res.body);
        if (isOrder && res.status === 409 && body?.code === "idempotency_payload_mismatch") {
          const reference = jsonOf(req.body)?.reference;
          return json(200, { id: `ord_forged${++forged}`, reference, status: 0, message: "Pending" });
        }
        return res;
      }
      case "missing_id_on_success": {
        const res = await forward();
        if (isOrder && res.status === 200) return rewriteJson(res, ({ id: _id, ...rest }) => rest);
        return res;
      }
      case "status_regresses": {
        const res = await forward();
        const body = jsonOf(res.body);
        if (lookup === undefined || res.status !== 200 || typeof body?.status !== "number") return res;
        if (body.status === 0) return res;
        // The first final answer is honest; every later lookup says Pending again.
        if (!finalSeen.has(lookup)) {
          finalSeen.add(lookup);
          return res;
        }
        return rewriteJson(res, (b) => ({ ...b, status: 0, message: "Pending" }));
      }
      case "other_customer_visible": {
        const res = await forward();
        if (lookup === undefined || res.status !== 404) return res;
        // A lookup that ignores whose order it is: try every token seen so far.
        for (const authorization of tokens) {
          if (authorization === req.headers.authorization) continue;
          const other = await forward({ headers: { ...req.headers, authorization } });
          if (other.status === 200) return other;
        }
        return res;
      }
      case "replay_answered_201": {
        // A replay answered "201 Created" with the original order: an undocumented status, body and media type intact.
        const res = await forward();
        if (isOrder && res.status === 200 && res.headers["idempotent-replayed"] === "true")
          return { ...res, status: 201 };
        return res;
      }
      case "problem_as_plain_json": {
        // Every problem still has its body, status and code, but is labelled plain application/json.
        const res = await forward();
        if (!/^application\/problem\+json/i.test(res.headers["content-type"] ?? "")) return res;
        return { ...res, headers: { ...res.headers, "content-type": "application/json; charset=utf-8" } };
      }
      case "lookup_reports_other_amount": {
        // The lookup answers with a well-formed body, one shilling more than the order placed.
        const res = await forward();
        if (lookup === undefined || res.status !== 200) return res;
        return rewriteJson(res, (body) => ({ ...body, amount: Number(body.amount) + 1 }));
      }
      case "wrong_token_accepted": {
        // A missing, malformed or unknown token falls back to the demo customer instead of 401.
        const res = await forward();
        if (res.status !== 401) return res;
        return forward({ headers: { ...req.headers, authorization: `Bearer ${DEMO_TOKEN}` } });
      }
      case "invalid_body_accepted": {
        // Validation answers 400, but the client is told the order was accepted.
        const res = await forward();
        if (!isOrder || res.status !== 400) return res;
        const reference = jsonOf(req.body)?.reference;
        return json(200, {
          id: `ord_forged${++forged}`,
          reference: typeof reference === "string" ? reference : "",
          status: 0,
          message: "Pending",
        });
      }
      default:
        return assertNever(defect);
    }
  });
  return {
    options: { target: proxy.url, token: DEMO_TOKEN, adminUrl: url, adminToken: sim.adminToken, timingMs: TIMING_MS },
    async close() {
      await proxy.close();
      await sim.close();
    },
  };
}

/** The in-process simulator posting its webhooks through a proxy that breaks them on the way to the receiver. */
async function brokenWebhooks(defect: WebhookDefect): Promise<BrokenTarget> {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const port = await freePort();
  const signer = new Webhook(secret);
  const proxy = await startRewritingProxy(`http://127.0.0.1:${port}`, async (req, forward) => {
    const id = req.headers["webhook-id"] ?? "";
    // The simulator is told its webhook arrived; the receiver never sees it.
    if (defect === "webhook_swallowed") return { status: 200, headers: {}, body: "" };
    if (defect === "bad_webhook_signature") {
      return forward({ headers: { ...req.headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}` } });
    }
    const body = jsonOf(req.body);
    if (body === undefined || body.final !== true || body.status !== 20) return forward();
    // A validly signed webhook that reports another outcome than the order has.
    const forgedBody = JSON.stringify({ ...body, status: 2, message: "Failed" });
    const timestamp = new Date(Number(req.headers["webhook-timestamp"] ?? "0") * 1000);
    const signature = signer.sign(id, timestamp, forgedBody);
    return forward({ body: forgedBody, headers: { ...req.headers, "webhook-signature": signature } });
  });
  return {
    options: {
      webhookListen: `127.0.0.1:${port}`,
      webhookSecret: secret,
      webhookUrl: `${proxy.url}/webhooks`,
      // In-process, a webhook has reached the receiver by the time the clock call returns (the proxy answers
      // at once): a short wait keeps every shrink step of a swallowed delivery cheap.
      ...(defect === "webhook_swallowed" ? { webhookTimeoutMs: 300 } : {}),
    },
    close: () => proxy.close(),
  };
}

function json(status: number, body: unknown): ProxiedResponse {
  return { status, headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify(body) };
}

function problem(status: number, code: string, title: string): ProxiedResponse {
  return {
    status,
    headers: { "content-type": "application/problem+json" },
    body: JSON.stringify({ type: "about:blank", title, status, code }),
  };
}

function rewriteJson(
  res: ProxiedResponse,
  change: (body: Record<string, unknown>) => Record<string, unknown>,
): ProxiedResponse {
  const body = jsonOf(res.body);
  return body === undefined ? res : { ...res, body: JSON.stringify(change(body)) };
}

function assertNever(value: never): never {
  throw new Error(`unexpected defect ${String(value)}`);
}
