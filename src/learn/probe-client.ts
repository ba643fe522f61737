/**
 * The probe's way to the target: every request it sends is printed before
 * it goes (method, path, body) and its answer after, and every order it
 * places is counted against the budget before it is sent, so the probe can
 * never spend more than it was given — an order is counted as spent unless
 * the target refused it.
 */
import { randomBytes } from "node:crypto";
import { createHttpClient, type HttpOutcome } from "../harness/http-client.ts";

export interface ProbeRequest {
  readonly method: string;
  readonly path: string;
  /** The bearer token; undefined sends no Authorization header. */
  readonly token: string | undefined;
  readonly body?: Record<string, unknown>;
  readonly idempotencyKey?: string;
}

export interface ProbeClient {
  send(request: ProbeRequest): Promise<HttpOutcome>;
  /**
   * Sends an order only when its amount still fits the budget: undefined
   * when it does not. An answer other than a 4xx counts as spent.
   */
  order(request: ProbeRequest & { readonly amount: number }): Promise<HttpOutcome | undefined>;
  /** KES spent (or possibly spent: an order without an answer counts). */
  spent(): number;
  /** The budget in KES, once known. */
  setBudget(kes: number): void;
  budget(): number | undefined;
}

/** A fresh idempotency key for one probe order. */
export function newProbeKey(): string {
  return `probe-${randomBytes(10).toString("hex")}`;
}

function describe(outcome: HttpOutcome): string {
  if (outcome.kind !== "response") return `no answer (${outcome.code})`;
  return `HTTP ${outcome.status} ${outcome.text.replace(/\s+/g, " ").slice(0, 160)}`;
}

/**
 * @example
 * const client = createProbeClient("https://sandbox.example", console.log);
 * client.setBudget(30);
 * await client.order({ method: "POST", path: "/v1/airtime", token, body, amount: 10 });
 */
export function createProbeClient(target: string, print: (line: string) => void): ProbeClient {
  const http = createHttpClient(target);
  let spentKes = 0;
  let budgetKes: number | undefined;

  async function send(request: ProbeRequest): Promise<HttpOutcome> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const auth = request.token === undefined ? " (no token)" : "";
    print(`→ ${request.method} ${request.path}${auth}${body === undefined ? "" : ` ${body}`}`);
    const outcome = await http.send({
      method: request.method,
      path: request.path,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    print(`  ← ${describe(outcome)}`);
    return outcome;
  }

  return {
    send,
    async order(request) {
      if (budgetKes !== undefined && spentKes + request.amount > budgetKes) return undefined;
      const outcome = await send(request);
      const refused = outcome.kind === "response" && outcome.status >= 400 && outcome.status < 500;
      if (!refused) spentKes += request.amount;
      return outcome;
    },
    spent: () => spentKes,
    setBudget(kes) {
      budgetKes = kes;
    },
    budget: () => budgetKes,
  };
}
