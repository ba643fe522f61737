/**
 * The HTTP helpers every suite shares. A request to a simulator is answered
 * in-process through its request listener (injected with light-my-request,
 * no socket) unless the simulator listens on a port: then it goes over that
 * socket, as for any other server given by its URL. Either way the reply has
 * the same shape: status, headers and parsed body.
 */
import type { RequestListener } from "node:http";
import inject from "light-my-request";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { testStore } from "./test-store.ts";

export const DEMO_TOKEN = "demo-token-for-tests";

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  readonly body: any;
  readonly text: string;
}

export interface SendInit {
  readonly method?: string | undefined;
  readonly headers?: Record<string, string> | undefined;
  /** Sent as JSON, with `content-type: application/json` unless `headers` name another. */
  readonly body?: unknown;
  /** Sent as it is; bytes are sent without a content type, a string as text/plain unless `headers` name one. */
  readonly raw?: string | Uint8Array | undefined;
  /** The client's address, as the server sees it; in-process only (a socket's is the real one). */
  readonly from?: string | undefined;
}

/** A simulator, or the base URL of any server (always reached over a socket). */
export type Target = Simulator | string;

/**
 * A simulator with the tests' defaults: virtual clock, seed 1, a demo
 * customer, no default plugins; on the memory store, or on a fresh Redis
 * database in the `redis` test project.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const store = await testStore();
  return createSimulator({
    clock: "virtual",
    seed: 1,
    demo: { token: DEMO_TOKEN, balance: 100_000 },
    defaultPlugins: false,
    ...(store === undefined ? {} : { store }),
    ...options,
  });
}

/** {@link startSimulator}, listening on a free port: the helpers then reach it over real connections. */
export async function startSimulatorOnPort(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator(options);
  await sim.listen(0);
  return sim;
}

/** `send(url)` for a whole URL; `send(target, path)` for a path on a simulator or a base URL. */
export function send(url: string, init?: SendInit): Promise<Reply>;
export function send(target: Target, path: string, init?: SendInit): Promise<Reply>;
export async function send(target: Target, pathOrInit: string | SendInit = {}, init: SendInit = {}): Promise<Reply> {
  const [path, options] = typeof pathOrInit === "string" ? [pathOrInit, init] : ["", pathOrInit];
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const request = { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, body };
  const base = typeof target === "string" ? target : listeningUrl(target);
  if (options.from !== undefined && base !== undefined) throw new Error("`from` needs an in-process simulator");
  if (typeof target === "string") return overSocket(`${target}${path}`, request);
  if (base === undefined) return inProcess(target.requestListener, path, { ...request, from: options.from });
  if (injected) throw new Error("this test file injects requests, so its simulators cannot serve a socket too");
  return overSocket(`${base}${path}`, request);
}

/**
 * light-my-request serves an express app by rewiring express's request and response prototypes for the
 * whole process, after which express no longer reads real sockets. Vitest runs each test file in its own
 * process: a file reaches its simulators either in-process or over sockets, never both.
 */
let injected = false;

interface PlainRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
}

async function overSocket(url: string, { method, headers, body }: PlainRequest): Promise<Reply> {
  const res = await fetch(url, { method, headers, body: body ?? null });
  return reply(res.status, res.headers, await res.text());
}

async function inProcess(
  listener: RequestListener,
  path: string,
  { method, headers, body, from }: PlainRequest & { readonly from: string | undefined },
) {
  // Built as fetch builds it, so both ways send the same request: the same refusals (methods, header
  // values), the URL normalised the same way, and a string body without a type sent as text/plain.
  const request = new Request(new URL(path, "http://localhost"), { method, headers, body: body ?? null });
  const url = new URL(request.url);
  injected = true;
  const res = await inject(listener, {
    method: request.method as NonNullable<inject.InjectOptions["method"]>,
    url: url.pathname + url.search,
    headers: Object.fromEntries(request.headers),
    ...(from === undefined ? {} : { remoteAddress: from }),
    // A Buffer, so that an empty body is still sent, with its content-length of 0, as fetch sends it.
    ...(body === undefined ? {} : { payload: Buffer.from(body) }),
  });
  const replyHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of [value].flat()) if (one !== undefined) replyHeaders.append(name, String(one));
  }
  return reply(res.statusCode, replyHeaders, res.payload);
}

function reply(status: number, headers: Headers, text: string): Reply {
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status, headers, contentType: headers.get("content-type") ?? "", body: parsed, text };
}

/** The simulator's base URL once it listens; undefined while it is reached in-process. */
function listeningUrl(sim: Simulator): string | undefined {
  try {
    return sim.url;
  } catch {
    return undefined;
  }
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

export function placeOrder(target: Target, body: unknown, headers: Record<string, string> = {}, token = DEMO_TOKEN) {
  return send(target, "/v1/airtime", { method: "POST", headers: { ...bearer(token), ...headers }, body });
}

/** GET /v1/airtime/{reference}, percent-encoded. */
export function lookup(target: Target, reference: string, token = DEMO_TOKEN) {
  return send(target, `/v1/airtime/${encodeURIComponent(reference)}`, { headers: bearer(token) });
}

/** A request to `/_sim{path}` with the simulator's admin token. */
export function admin(sim: Simulator, path: string, init: Omit<SendInit, "headers"> = {}) {
  return send(sim, `/_sim${path}`, { ...init, headers: bearer(sim.adminToken) });
}

export async function balanceOf(target: Target, token = DEMO_TOKEN, shortcode?: string): Promise<number> {
  const query = shortcode === undefined ? "" : `?shortcode=${encodeURIComponent(shortcode)}`;
  const reply = await send(target, `/v1/balance${query}`, { headers: bearer(token) });
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
