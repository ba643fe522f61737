/**
 * Shared setup for the black-box HTTP suites: a simulator on a real port and
 * small request helpers that return status, headers and parsed body.
 */
import { createSimulator, type Simulator, type SimulatorOptions } from "../../src/index.ts";

export const DEMO_TOKEN = "demo-token-for-tests";

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  readonly body: any;
  readonly text: string;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await createSimulator({
    clock: "virtual",
    seed: 1,
    demo: { token: DEMO_TOKEN, balance: 100_000 },
    defaultPlugins: false,
    ...options,
  });
  await sim.listen(0);
  return sim;
}

export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body ?? null,
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, contentType, body: parsed, text };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

let counter = 0;
/** A valid send-airtime body with a fresh reference. */
export function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    account: "0712345678",
    amount: 100,
    currency: "KES",
    reference: `ref-${counter}-${Date.now()}`,
    ...overrides,
  };
}

export function placeOrder(sim: Simulator, body: unknown, headers: Record<string, string> = {}, token = DEMO_TOKEN) {
  return send(`${sim.url}/v1/airtime`, { method: "POST", headers: { ...bearer(token), ...headers }, body });
}

export function admin(sim: Simulator, path: string, init: { method?: string; body?: unknown } = {}) {
  return send(`${sim.url}/_sim${path}`, { ...init, headers: bearer(sim.adminToken) });
}

export async function balanceOf(sim: Simulator, token = DEMO_TOKEN, shortcode?: string): Promise<number> {
  const query = shortcode === undefined ? "" : `?shortcode=${encodeURIComponent(shortcode)}`;
  const reply = await send(`${sim.url}/v1/balance${query}`, { headers: bearer(token) });
  if (reply.status !== 200) throw new Error(`balance: ${reply.status} ${reply.text}`);
  return reply.body.amount as number;
}

export function expectProblem(reply: Reply, status: number, code: string): void {
  if (
    reply.status !== status ||
    reply.body?.code !== code ||
    !reply.contentType.startsWith("application/problem+json")
  ) {
    throw new Error(`expected ${status} ${code} problem+json, got ${reply.status} ${reply.contentType} ${reply.text}`);
  }
  const { type, title, detail, instance } = reply.body;
  if (
    typeof type !== "string" ||
    typeof title !== "string" ||
    typeof detail !== "string" ||
    typeof instance !== "string"
  ) {
    throw new Error(`not an RFC 9457 body: ${reply.text}`);
  }
  if (reply.body.status !== status) throw new Error(`body status ${reply.body.status} differs from ${status}`);
}
