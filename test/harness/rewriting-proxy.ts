/**
 * A small real HTTP proxy that lets a test rewrite requests and responses on
 * their way — how the harness's tests build deliberately broken targets out of
 * the correct simulator, without touching the simulator itself.
 */
import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What to do with one request: answer it without forwarding, or forward it and maybe rewrite the answer. */
export type Interceptor = (
  req: ProxiedRequest,
  forward: (override?: Partial<ProxiedRequest>) => Promise<ProxiedResponse>,
) => Promise<ProxiedResponse>;

export interface RewritingProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startRewritingProxy(upstream: string, intercept: Interceptor): Promise<RewritingProxy> {
  const base = new URL(upstream);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const incoming: ProxiedRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: flatten(req.headers),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const forward = (override: Partial<ProxiedRequest> = {}) => send(base, { ...incoming, ...override });
      intercept(incoming, forward).then(
        (answer) => {
          const { "transfer-encoding": _te, connection: _connection, ...kept } = answer.headers;
          const headers = { ...kept, "content-length": String(Buffer.byteLength(answer.body)) };
          res.writeHead(answer.status, headers);
          res.end(answer.body);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base.pathname === "/" ? "" : base.pathname}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function send(base: URL, req: ProxiedRequest): Promise<ProxiedResponse> {
  const { host: _host, connection: _connection, "content-length": _length, ...headers } = req.headers;
  const path = base.pathname !== "/" && !req.path.startsWith(base.pathname) ? `${base.pathname}${req.path}` : req.path;
  return new Promise((resolve, reject) => {
    const upstream = request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path,
        headers: { ...headers, "content-length": Buffer.byteLength(req.body) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 502,
            headers: flatten(res.headers),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    upstream.on("error", reject);
    upstream.end(req.body);
  });
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function jsonOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
