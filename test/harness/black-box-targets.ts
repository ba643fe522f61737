/**
 * Black-box targets: the simulator on a real clock with fast, random finals
 * (some of them failures), reached only over HTTP — no admin powers, one
 * customer's token, webhooks to the harness's receiver — as a CI pipeline
 * meets a real deployment. Each defect is planted by a proxy in front of the
 * API or between the simulator and the receiver.
 */
import { createHash, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { DEFAULT_ACCOUNTS } from "../../src/harness/accounts.ts";
import type { CheckName } from "../../src/harness/checks.ts";
import { freePort } from "../../src/harness/child-process.ts";
import type { ContractOptions } from "../../src/harness/contract-options.ts";
import type { Strictness } from "../../src/harness/strictness.ts";
import type { PropertyName } from "../../src/harness/property.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { jsonOf, type ProxiedResponse, startRewritingProxy } from "./rewriting-proxy.ts";

/**
 * Each planted defect: the check that must catch it, the property that
 * meets it, and the profiles it is proven under — `strict` and `interface`
 * where the rule it breaks is the interface document's, `strict` alone where
 * it is our spec's (a header, a status's wording, an account's
 * normalisation).
 */
const BOTH = ["strict", "interface"] as const;
const STRICT = ["strict"] as const;
export const BLACK_BOX_DEFECTS = {
  failure_not_refunded: { check: "no_double_charge", property: "model", profiles: BOTH },
  failure_refunded_twice: { check: "no_double_charge", property: "model", profiles: BOTH },
  // Without a status table (this target's profile states none) interface judges only a final status read
  // as pending again: the flip may first show as its Failed webhook disagreeing with the Success lookup.
  failed_then_success: {
    check: "status_monotonic",
    property: "model",
    profiles: BOTH,
    underInterfaceAlso: "webhook_matches_lookup",
  },
  late_flip: { check: "status_monotonic", property: "model", profiles: BOTH },
  no_webhook_for_failures: { check: "webhook_delivered", property: "model", profiles: BOTH },
  timeout_webhook_says_failed: { check: "webhook_matches_lookup", property: "model", profiles: BOTH },
  crash_on_non_string_name: { check: "never_server_error", property: "negative-input", profiles: BOTH },
  no_replayed_header: { check: "idempotent_replay", property: "model", profiles: STRICT },
  path_not_decoded: { check: "lookup_consistent", property: "model", profiles: BOTH },
  // §7 is the interface's too, but this target is provoked through its shortcode wallet, which only our
  // spec knows; under interface a second customer's balance provokes it (foreign-answers-defects.test.ts,
  // failed_order_keeps_id), and this target has none.
  id_on_insufficient_balance: { check: "response_schema_conformance", property: "status-codes", profiles: STRICT },
  timeout_message_failed: { check: "lookup_consistent", property: "model", profiles: STRICT },
  account_fingerprinted_as_written: { check: "idempotent_replay", property: "model", profiles: STRICT },
  reversal_without_webhook: { check: "webhook_matches_lookup", property: "model", profiles: BOTH },
} as const satisfies Record<
  string,
  { check: CheckName; property: PropertyName; profiles: readonly Strictness[]; underInterfaceAlso?: CheckName }
>;

/**
 * `none`: the correct deployment. `shaped_differently`: correct, but shaped
 * differently wherever the interface is silent — an enveloped body, money as
 * strings, 422 for invalid input, 404 for a wrong method, and HTTP 200
 * without an id for an insufficient balance. `shaped_status_event`: that,
 * with webhooks in an envelope, `{"event": "airtime.status", "data": {…}}`
 * (our spec's event value, under a field our spec does not use).
 */
export type BlackBoxDefect =
  | keyof typeof BLACK_BOX_DEFECTS
  | "none"
  | "shaped_differently"
  | "shaped_status_event"
  /** The first order ever sent gets a 500; nothing else goes wrong: a failure that cannot be replayed. */
  | "server_error_once"
  /** Idempotency keys forgotten 10 s after their first use instead of 24 hours: only --recheck sees it. */
  | "short_key_retention"
  | ForeignVariant;

/**
 * `foreign`: correct, and foreign wherever the interface is silent at once —
 * `shaped_differently`, plus an error body that nests its code
 * (`{success: false, error: {code}}`), webhooks in an envelope with an event
 * name (`{event: "airtime.completed", data}`), and no `Idempotent-Replayed`
 * header (our spec's, not the interface's). The others are that deployment
 * with one more trait: a lookup that does not percent-decode the reference
 * (a defect); Success reversed and refunded 300 ms after it settled
 * (correct); a connection reset for a request body over 64 KiB (correct: the
 * interface states no limit); a final status that reads as pending again
 * once (a defect).
 */
const FOREIGN_VARIANTS = [
  "foreign",
  "foreign_path_not_decoded",
  "foreign_late_reversal",
  "foreign_reset_large_body",
  "foreign_final_then_pending",
] as const;
type ForeignVariant = (typeof FOREIGN_VARIANTS)[number];

/** How the foreign deployment shapes its bodies, as the provider profile a user writes for it. */
export const FOREIGN_PROFILE_YAML = `profile: 1
name: foreign-shaped deployment
bodies:
  order: { id: /data/id, reference: /data/reference, status: /data/status, message: /data/message }
  lookup: { id: /data/id, reference: /data/reference, status: /data/status, amount: /data/amount }
  webhook: { id: /data/id, reference: /data/reference, status: /data/status, amount: /data/amount }
  balance: { amount: /data/amount }
  error: { code: /error/code, message: /error/message }
money: string
http: { invalidInput: 422, unauthorized: 401, insufficientBalance: 200, notFound: 404, wrongMethod: 404 }
webhooks:
  event: { pointer: /event, values: [airtime.completed] }
  deliveryId: { header: webhook-id }
  signing: { scheme: standard-webhooks }
`;

/** The magic-free account whose orders are reversed after they settle (foreign_late_reversal). */
const LATE_REVERSAL_ACCOUNT = "0712000199";
const LARGE_BODY_BYTES = 64 * 1024;

/** Where the differently shaped deployment keeps what the harness reads. */
export const SHAPED_MAPPING = {
  order: { id: "/data/id", status: "/data/status", reference: "/data/reference" },
  lookup: { id: "/data/id", status: "/data/status", reference: "/data/reference" },
  balance: "/data/amount",
};

export interface BlackBoxTarget {
  readonly options: ContractOptions;
  close(): Promise<void>;
}

/** The magic test number that times out (6): Timeout finals without admin powers. */
const TIMEOUT_ACCOUNT = "0700000002";
const FAILED_CLASS = new Set([1, 2, 5, 6, 7, 8, 9, 10, 11, 13, 15, 16, 17, 18, 19, 24, 120]);
/** How long after its first Failed lookup a "failed then success" order turns Success, ms. */
const FLIP_AFTER_MS = 30;
/** How long the API must hear nothing before late-flipping orders turn Success (with a second webhook), ms. */
export const LATE_FLIP_QUIET_MS = 6000;

export async function startBlackBoxTarget(
  defect: BlackBoxDefect,
  seed = 1,
  balanceKes = 1_000_000,
): Promise<BlackBoxTarget> {
  const token = `black-box-${randomBytes(6).toString("hex")}`;
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const receiverPort = await freePort();
  const signer = new Webhook(secret);
  const lateFlip = createLateFlip();
  /** The flipped order's second webhook, signed like the first, straight to the receiver. */
  const sendFlipped = async (path: string, failed: Record<string, unknown>) => {
    const webhookId = `msg_late_${randomBytes(6).toString("hex")}`;
    const now = new Date();
    const payload = JSON.stringify({ ...failed, ...FLIPPED });
    await fetch(`http://127.0.0.1:${receiverPort}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": webhookId,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signer.sign(webhookId, now, payload),
      },
      body: payload,
    }).catch(() => undefined);
  };
  const webhookProxy = await startRewritingProxy(`http://127.0.0.1:${receiverPort}`, async (req, forward) => {
    const body = jsonOf(req.body);
    const status = typeof body?.status === "number" ? body.status : undefined;
    if (defect === "late_flip" && status === 2 && typeof body?.reference === "string") {
      lateFlip.wentFailed(body.reference, () => sendFlipped(req.path, body));
    }
    if (defect === "reversal_without_webhook" && status === REVERSED_STATUS) {
      return { status: 200, headers: {}, body: "" };
    }
    if (defect === "no_webhook_for_failures" && status !== undefined && FAILED_CLASS.has(status)) {
      return { status: 200, headers: {}, body: "" };
    }
    if (defect === "timeout_webhook_says_failed" && body !== undefined && status === 6) {
      const forged = JSON.stringify({ ...body, status: 2, message: "Failed" });
      const timestamp = new Date(Number(req.headers["webhook-timestamp"] ?? "0") * 1000);
      const signature = signer.sign(req.headers["webhook-id"] ?? "", timestamp, forged);
      return forward({ body: forged, headers: { ...req.headers, "webhook-signature": signature } });
    }
    if ((isForeign(defect) || defect === "shaped_status_event") && body !== undefined) {
      const event = defect === "shaped_status_event" ? "airtime.status" : "airtime.completed";
      const enveloped = JSON.stringify({ event, data: moneyAsStrings(body) });
      const timestamp = new Date(Number(req.headers["webhook-timestamp"] ?? "0") * 1000);
      const signature = signer.sign(req.headers["webhook-id"] ?? "", timestamp, enveloped);
      return forward({ body: enveloped, headers: { ...req.headers, "webhook-signature": signature } });
    }
    return forward();
  });
  const sim = await createSimulator({
    clock: "real",
    seed,
    timing: { kind: "uniform", minMs: 50, maxMs: 150 },
    failureRate: 0.25,
    demo: false,
    customers: [
      {
        id: "black-box",
        token,
        balance: balanceKes,
        // A wallet one order can exceed: a 402 without admin powers.
        wallets: [{ shortcode: "600100", balance: 50 }],
        webhook: { url: `${webhookProxy.url}/webhooks`, secrets: [secret] },
      },
    ],
    webhooks: { schedule: "0,100ms,500ms", jitter: 0 },
    ...(defect === "foreign_late_reversal" || defect === "reversal_without_webhook"
      ? {
          scenarios: {
            definitions: [
              {
                name: "late-reversal",
                description: "Success, then reversed and refunded soon after it settled",
                rules: [
                  {
                    name: "reverse-after-settling",
                    match: { account: { exact: LATE_REVERSAL_ACCOUNT } },
                    effects: { outcome: { status: 20 }, reverseAfter: "300ms" },
                  },
                ],
              },
            ],
            active: ["late-reversal"],
          },
        }
      : {}),
  });
  const simUrl = await sim.listen(0, "127.0.0.1");

  const failedAt = new Map<string, number>();
  const finalShown = new Set<string>();
  const pendingAgain = new Set<string>();
  const failedAmounts = new Map<string, number>();
  let erredOnce = false;
  const keyFirstSeen = new Map<string, number>();
  const accountAsWritten = new Map<string, string>();
  const api = await startRewritingProxy(simUrl, async (req, forward) => {
    if (defect === "late_flip") await lateFlip.heard();
    if (defect === "account_fingerprinted_as_written" && req.method === "POST") {
      const mismatch = fingerprintAsWritten(req, accountAsWritten);
      if (mismatch !== undefined) return forward(mismatch);
    }
    if (defect === "short_key_retention" && req.method === "POST") {
      const forgotten = forgetOldKey(req, keyFirstSeen);
      if (forgotten !== undefined) return forward(forgotten);
    }
    if (defect === "server_error_once" && req.method === "POST" && !erredOnce) {
      erredOnce = true;
      return { status: 503, headers: { "content-type": "text/plain" }, body: "upstream hiccup" };
    }
    if (defect === "crash_on_non_string_name" && req.method === "POST") {
      const name = jsonOf(req.body)?.name;
      if (name !== undefined && typeof name !== "string") {
        return {
          status: 500,
          headers: { "content-type": "text/plain" },
          body: "TypeError: name.trim is not a function",
        };
      }
    }
    if (defect === "foreign_reset_large_body" && Buffer.byteLength(req.body) > LARGE_BODY_BYTES) {
      throw new Error("the connection is reset"); // the proxy destroys the socket
    }
    const undecoded = defect === "path_not_decoded" || defect === "foreign_path_not_decoded";
    if (undecoded && req.method === "GET" && req.path.startsWith("/v1/airtime/")) {
      // The handler looks the reference up as it came on the wire, still percent-encoded.
      return forward({ path: req.path.replaceAll("%", "%25") });
    }
    const res = await forward();
    if (defect === "shaped_differently" || defect === "shaped_status_event") return reshape(res);
    if (defect === "timeout_message_failed") return timeoutSaysFailed(res);
    if (defect === "foreign_final_then_pending" && req.method === "GET" && res.status === 200) {
      const looked = jsonOf(res.body);
      const reference = typeof looked?.reference === "string" ? looked.reference : undefined;
      // Once per order, a final status already shown is reported as pending again.
      if (reference !== undefined && looked?.status !== 0 && typeof looked?.status === "number") {
        if (!finalShown.has(reference)) finalShown.add(reference);
        else if (!pendingAgain.has(reference)) {
          pendingAgain.add(reference);
          return reshapeForeign({ ...res, body: JSON.stringify({ ...looked, status: 0, message: "Pending" }) });
        }
      }
    }
    if (isForeign(defect)) return reshapeForeign(res);
    if (defect === "no_replayed_header" && res.headers["idempotent-replayed"] !== undefined) {
      const { "idempotent-replayed": _dropped, ...headers } = res.headers;
      return { ...res, headers };
    }
    if (defect === "id_on_insufficient_balance" && res.status === 402) {
      return rewrite(res, { id: `ord_${randomBytes(4).toString("hex")}`, ...jsonOf(res.body) });
    }
    const lookup = req.method === "GET" ? /^\/v1\/airtime\/([^/?]+)/.exec(req.path)?.[1] : undefined;
    const body = jsonOf(res.body);
    if (defect === "late_flip" && res.status === 200 && body?.status === 2 && typeof body.reference === "string") {
      // Lookups and replays alike: once flipped, the order reads as a Success everywhere.
      if (lateFlip.flipped(body.reference)) return rewrite(res, { ...body, ...FLIPPED });
    }
    if (lookup !== undefined && res.status === 200 && typeof body?.status === "number") {
      if (FAILED_CLASS.has(body.status)) failedAmounts.set(lookup, Number(body.amount));
      if (defect === "failed_then_success" && body.status === 2) {
        const first = failedAt.get(lookup) ?? Date.now();
        failedAt.set(lookup, first);
        if (Date.now() - first >= FLIP_AFTER_MS) return rewrite(res, { ...body, status: 20, message: "Success" });
      }
    }
    if (req.method === "GET" && req.path.startsWith("/v1/balance") && res.status === 200 && body !== undefined) {
      // The wallet behind the balance never got (or got twice) the refund of every failure a lookup showed.
      const refunds = [...failedAmounts.values()].reduce((sum, amount) => sum + amount, 0);
      const shift = defect === "failure_not_refunded" ? -refunds : defect === "failure_refunded_twice" ? refunds : 0;
      if (shift !== 0) return rewrite(res, { ...body, amount: Math.round((Number(body.amount) + shift) * 100) / 100 });
    }
    return res;
  });
  return {
    options: {
      target: api.url,
      token,
      webhookListen: `127.0.0.1:${receiverPort}`,
      webhookSecret: secret,
      webhookUrl: `${webhookProxy.url}/webhooks`,
      accounts: [
        ...DEFAULT_ACCOUNTS,
        TIMEOUT_ACCOUNT,
        ...(defect === "foreign_late_reversal" || defect === "reversal_without_webhook"
          ? [LATE_REVERSAL_ACCOUNT, LATE_REVERSAL_ACCOUNT]
          : []),
      ],
      finalTimeoutMs: 5000,
      webhookTimeoutMs: 1000,
    },
    async close() {
      await api.close();
      await sim.close();
      await webhookProxy.close();
    },
  };
}

/** Our spec's Reversed: a Success given back after it settled. */
const REVERSED_STATUS = 8;

/**
 * `account_fingerprinted_as_written`: the key's payload fingerprint takes the
 * account as first written, so a retry writing the same number another way
 * (0712… after +254712…) is a different payload. The simulator is sent a
 * payload that differs for it too (the amount), so its 409 is the answer.
 */
function fingerprintAsWritten(
  req: { readonly headers: Record<string, string>; readonly body: string },
  firstWritten: Map<string, string>,
): { body: string } | undefined {
  const body = jsonOf(req.body);
  const key = req.headers["idempotency-key"];
  if (key === undefined || typeof body?.account !== "string") return undefined;
  const first = firstWritten.get(key) ?? body.account;
  firstWritten.set(key, first);
  if (first === body.account) return undefined;
  return { body: JSON.stringify({ ...body, amount: Number(body.amount) + 1 }) };
}

/** `timeout_message_failed`: status 6 (Timeout in our table) reads "Failed", in the body and in its history. */
function timeoutSaysFailed(res: ProxiedResponse): ProxiedResponse {
  const body = jsonOf(res.body);
  if (body === undefined) return res;
  const history = Array.isArray(body.history)
    ? body.history.map((entry: { status?: unknown }) => (entry.status === 6 ? { ...entry, message: "Failed" } : entry))
    : body.history;
  return rewrite(res, { ...body, ...(body.status === 6 ? { message: "Failed" } : {}), history });
}

/** How long `short_key_retention` remembers an idempotency key, ms. */
const KEY_RETENTION_MS = 10_000;

/** A key first used over 10 s ago reaches the simulator as a fresh key: the order is placed again (or refused). */
function forgetOldKey(
  req: { readonly headers: Record<string, string>; readonly body: string },
  firstSeen: Map<string, number>,
): { headers: Record<string, string>; body: string } | undefined {
  const body = jsonOf(req.body);
  const key =
    req.headers["idempotency-key"] ?? (typeof body?.idempotencyKey === "string" ? body.idempotencyKey : undefined);
  if (key === undefined) return undefined;
  const first = firstSeen.get(key) ?? Date.now();
  firstSeen.set(key, first);
  if (Date.now() - first < KEY_RETENTION_MS) return undefined;
  // A key of the same length, so the target answers as to a new order, never as to a malformed key.
  const fresh = `${key.slice(0, -9)}-${randomBytes(4).toString("hex")}`;
  if (req.headers["idempotency-key"] !== undefined)
    return { headers: { ...req.headers, "idempotency-key": fresh }, body: req.body };
  return { headers: req.headers, body: JSON.stringify({ ...body, idempotencyKey: fresh }) };
}

/** What a late-flipping order reads as once flipped. */
const FLIPPED = { status: 20, message: "Success" } as const;

/**
 * `late_flip`: every other reference (by a hash of it) that goes Failed turns
 * Success, with a second webhook, once the API has heard nothing for
 * LATE_FLIP_QUIET_MS. A run never falls that quiet (its longest wait, for a
 * webhook, is a second, stretched by a loaded machine to a few at most); a
 * late audit of twice that waits that long after the newest order went
 * final. So the run itself never sees a flip, and such a late audit always
 * does: the first request after the silence finds every such order flipped,
 * and is answered only once their webhooks were delivered.
 */
function createLateFlip() {
  /** Flippable orders whose Failed webhook went out, with how to send each one's second webhook. */
  const failed = new Map<string, () => Promise<void>>();
  const flipped = new Set<string>();
  let lastHeard = Date.now();
  return {
    wentFailed(reference: string, sendWebhook: () => Promise<void>) {
      const flips = (createHash("sha256").update(reference).digest()[0] ?? 0) % 2 === 0;
      if (flips && !flipped.has(reference) && !failed.has(reference)) failed.set(reference, sendWebhook);
    },
    flipped: (reference: string) => flipped.has(reference),
    /** Called as each API request arrives: after a silence, every order seen Failed flips first. */
    async heard() {
      const quiet = Date.now() - lastHeard >= LATE_FLIP_QUIET_MS;
      lastHeard = Date.now();
      if (!quiet) return;
      const due = [...failed];
      failed.clear();
      for (const [reference] of due) flipped.add(reference);
      await Promise.all(due.map(([, sendWebhook]) => sendWebhook()));
    },
  };
}

/** Our answers, reshaped only where the interface says "not shown". */
function reshape(res: ProxiedResponse): ProxiedResponse {
  const body = jsonOf(res.body);
  if (res.status === 405) return { ...res, status: 404 };
  if (res.status === 400 && body?.code === "validation_failed") return { ...res, status: 422 };
  if (res.status === 402 && body !== undefined) {
    const { code: _code, ...failed } = body;
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ data: failed }) };
  }
  if (res.status !== 200 || body === undefined) return res;
  return rewrite(res, { data: moneyAsStrings(body) });
}

function isForeign(defect: BlackBoxDefect): defect is ForeignVariant {
  return (FOREIGN_VARIANTS as readonly string[]).includes(defect);
}

/** `reshape`, plus error bodies that nest their code and no Idempotent-Replayed header. */
function reshapeForeign(res: ProxiedResponse): ProxiedResponse {
  const shaped = reshape(res);
  const { "idempotent-replayed": _replayed, ...headers } = shaped.headers;
  const body = jsonOf(shaped.body);
  if (shaped.status >= 400 && typeof body?.code === "string") {
    const error = { code: body.code, message: body.title ?? body.detail };
    return {
      status: shaped.status,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ success: false, error }),
    };
  }
  return { ...shaped, headers };
}

function moneyAsStrings(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => moneyAsStrings(item));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moneyAsStrings(v, k)]));
  }
  return key === "amount" && typeof value === "number" ? value.toFixed(2) : value;
}

function rewrite(res: ProxiedResponse, body: Record<string, unknown>): ProxiedResponse {
  return { ...res, body: JSON.stringify(body) };
}
