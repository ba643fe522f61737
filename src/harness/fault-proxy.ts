/**
 * The harness's own fault proxy: a real HTTP server, in-process, between the
 * runner and the target, so faults work against any deployment, not only the
 * simulator. Each request may name a fault in the `x-harness-fault` header
 * (stripped before forwarding):
 *
 * - `drop_response`: forward, read the target's whole answer, then reset the
 *   client's connection — the target committed, the client saw an error;
 * - `reset_before`: reset the client's connection, forward nothing;
 * - `latency=MS`: wait, then forward.
 *
 * What the target answered to a dropped request is kept (by the
 * `x-harness-request` id), so the harness knows what the client missed.
 */
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { FAULT_HEADER, type Fault, parseFault, REQUEST_ID_HEADER } from "./faults.ts";

export interface ProxyObservation {
  readonly requestId?: string;
  readonly method: string;
  readonly path: string;
  readonly fault?: Fault;
  /** Whether the request reached the target. */
  readonly forwarded: boolean;
  /** The target's answer (absent when not forwarded or the target was unreachable). */
  readonly upstream?: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly text: string;
  };
  /** Set when the target could not be reached. */
  readonly upstreamError?: string;
}

export interface FaultProxy {
  /** The proxy's base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  /** What happened to the request with this `x-harness-request` id. */
  observation(requestId: string): ProxyObservation | undefined;
  /** Every request with a fault, in arrival order. */
  faulted(): readonly ProxyObservation[];
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are not forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
]);

/** Observations kept for lookup by request id; the oldest are forgotten first. */
const KEPT_OBSERVATIONS = 10_000;

/**
 * Starts a fault proxy in front of `target` on a free port of 127.0.0.1.
 *
 * @example
 * const proxy = await startFaultProxy({ target: sim.url });
 * const client = createHttpClient(proxy.url);
 * await client.send({ method: "POST", path: "/v1/airtime", body, fault: { kind: "drop_response" } });
 * await proxy.close();
 */
export async function startFaultProxy(options: { readonly target: string }): Promise<FaultProxy> {
  const target = new URL(options.target);
  const observations = createObservations(KEPT_OBSERVATIONS);
  const { remember } = observations;

  const server = createServer((req, res) => {
    const fault = parseFault(header(req, FAULT_HEADER));
    const requestId = header(req, REQUEST_ID_HEADER);
    const base = {
      ...(requestId === undefined ? {} : { requestId }),
      method: req.method ?? "GET",
      path: req.url ?? "/",
      ...(fault === undefined ? {} : { fault }),
    };
    if (fault?.kind === "reset_before") {
      remember({ ...base, forwarded: false });
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", () => res.destroy());
    req.on("end", () => {
      const delay = fault?.kind === "latency" ? fault.ms : 0;
      setTimeout(() => {
        void forward(target, req, Buffer.concat(chunks)).then((answer) => {
          if (answer.kind === "error") {
            remember({ ...base, forwarded: true, upstreamError: answer.message });
            req.socket.destroy();
            return;
          }
          remember({
            ...base,
            forwarded: true,
            upstream: {
              status: answer.status,
              headers: flatHeaders(answer.headers),
              text: answer.body.toString("utf8"),
            },
          });
          if (fault?.kind === "drop_response") {
            // The target has committed and answered; the client hears nothing but a reset.
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        });
      }, delay);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    observation: observations.observation,
    faulted: observations.faulted,
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function flatHeaders(headers: OutgoingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * What the proxy saw, bounded: observations by request id (what the client
 * of a dropped request missed) and the faulted requests in order, each
 * forgetting its oldest beyond `keep`, so a long run holds steady memory.
 */
function createObservations(keep: number): Pick<FaultProxy, "observation" | "faulted"> & {
  remember(observation: ProxyObservation): void;
} {
  const byId = new Map<string, ProxyObservation>();
  const faulted: ProxyObservation[] = [];

  function remember(observation: ProxyObservation): void {
    if (observation.fault !== undefined) {
      faulted.push(observation);
      if (faulted.length > keep) faulted.shift();
    }
    if (observation.requestId === undefined) return;
    byId.set(observation.requestId, observation);
    if (byId.size > keep) {
      const oldest = byId.keys().next().value;
      if (oldest !== undefined) byId.delete(oldest);
    }
  }

  return {
    remember,
    observation: (requestId) => byId.get(requestId),
    faulted: () => [...faulted],
  };
}

/** The target's whole answer, or why it could not be had. */
type Answer =
  | { readonly kind: "answer"; readonly status: number; readonly headers: OutgoingHttpHeaders; readonly body: Buffer }
  | { readonly kind: "error"; readonly message: string };

/**
 * Sends the request on to the target, headers and body as received less
 * the hop-by-hop and harness headers, and reads the whole answer: a
 * dropped response needs it recorded before the client's connection goes.
 */
function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<Answer> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === FAULT_HEADER || name === REQUEST_ID_HEADER) continue;
    headers[name] = value;
  }
  headers["content-length"] = String(body.length);
  const prefix = target.pathname.replace(/\/+$/, "");
  const url = new URL(`${target.protocol}//${target.host}${prefix}${req.url ?? "/"}`);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve) => {
    const upstream = send(url, { method: req.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (error) => resolve({ kind: "error", message: error.message }));
      res.on("end", () => {
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        const responseBody = Buffer.concat(chunks);
        out["content-length"] = String(responseBody.length);
        resolve({ kind: "answer", status: res.statusCode ?? 502, headers: out, body: responseBody });
      });
    });
    upstream.on("error", (error) => resolve({ kind: "error", message: error.message }));
    upstream.end(body);
  });
}
