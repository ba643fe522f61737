/**
 * The bench's three requests, and how each load generator sends them: a Lua
 * script and arguments for `wrk`, request options for autocannon. `POST
 * /v1/airtime` is a new order every time (a fresh idempotency key and
 * reference), so wrk needs a script; the two GETs are the same request over
 * and over.
 */
export const BENCH_TOKEN = "bench-token-0001";
/** The order the simulator server places at start, for the lookups to read. */
export const BENCH_LOOKUP_REFERENCE = "bench-lookup-0001";

/** The GETs' fixed answers, of the simulator's shape, for the servers that only stand in for it. */
export const LOOKUP_BODY = JSON.stringify({
  id: "ord_1",
  reference: BENCH_LOOKUP_REFERENCE,
  status: 20,
  message: "Success",
  service: "safaricom",
  account: "+254712345678",
  amount: 10,
  currency: "KES",
  shortcode: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:02.000Z",
  history: [],
});
export const BALANCE_BODY = JSON.stringify({
  status: 20,
  amount: 1_000_000,
  currency: "KES",
  shortcode: null,
  wallets: [{ shortcode: null, amount: 1_000_000, currency: "KES", default: true }],
});

export type Endpoint = "post" | "lookup" | "balance";
export const ENDPOINTS: readonly Endpoint[] = ["post", "lookup", "balance"];
export const ENDPOINT_LABELS: Readonly<Record<Endpoint, string>> = {
  post: "POST /v1/airtime",
  lookup: "GET /v1/airtime/{ref}",
  balance: "GET /v1/balance",
};

const PATHS: Readonly<Record<Endpoint, string>> = {
  post: "/v1/airtime",
  lookup: `/v1/airtime/${BENCH_LOOKUP_REFERENCE}`,
  balance: "/v1/balance",
};

export function orderBody(reference: string): string {
  return JSON.stringify({ account: "0712345678", amount: 10, currency: "KES", reference });
}

/** What every load generator reports, in the same units. */
export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, connection errors and timeouts. */
  readonly problems: number;
}

const lua = (text: string): string => JSON.stringify(text); // a JSON string is a valid Lua string literal here

/**
 * The Lua script wrk runs. `prefix` makes every key and reference of this
 * measurement unique; each wrk thread numbers its own requests under its own
 * id. `done` prints one line, `WRK_RESULT {json}`, for {@link parseWrkOutput}.
 */
export function wrkScript(endpoint: Endpoint, prefix: string): string {
  const common = [
    `local token = ${lua(`Bearer ${BENCH_TOKEN}`)}`,
    "local threads = 0",
    "function setup(thread)",
    "  threads = threads + 1",
    '  thread:set("tid", threads)',
    "end",
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format(\'WRK_RESULT {"requests":%.0f,"durationUs":%.0f,"p50Us":%.0f,"p99Us":%.0f,"problems":%.0f}\\n\',',
    "    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),",
    "    e.status + e.connect + e.read + e.write + e.timeout))",
    "end",
  ];
  if (endpoint !== "post") {
    return [
      ...common,
      'wrk.method = "GET"',
      `wrk.path = ${lua(PATHS[endpoint])}`,
      'wrk.headers["Authorization"] = token',
      "",
    ].join("\n");
  }
  return [
    ...common,
    "local counter = 0",
    "request = function()",
    "  counter = counter + 1",
    `  local key = ${lua(prefix)} .. "-" .. tostring(tid or 0) .. "-" .. counter`,
    '  local body = \'{"account":"0712345678","amount":10,"currency":"KES","reference":"\' .. key .. \'"}\'',
    `  return wrk.format("POST", ${lua(PATHS.post)}, {`,
    '    ["Content-Type"] = "application/json",',
    '    ["Authorization"] = token,',
    '    ["Idempotency-Key"] = key,',
    "  }, body)",
    "end",
    "",
  ].join("\n");
}

export interface WrkRun {
  readonly url: string;
  readonly scriptPath: string;
  readonly durationS: number;
  readonly connections: number;
  readonly threads: number;
}

export function wrkArgs(run: WrkRun): string[] {
  return [
    `-t${run.threads}`,
    `-c${run.connections}`,
    `-d${run.durationS}s`,
    "--timeout",
    "5s",
    "-s",
    run.scriptPath,
    run.url,
  ];
}

/** The `WRK_RESULT` line the script's `done` printed, as a {@link LoadResult}. */
export function parseWrkOutput(stdout: string): LoadResult {
  const line = stdout.split("\n").find((l) => l.startsWith("WRK_RESULT "));
  if (line === undefined) throw new Error(`wrk printed no result:\n${stdout.slice(0, 2000)}`);
  const raw = JSON.parse(line.slice("WRK_RESULT ".length)) as {
    requests: number;
    durationUs: number;
    p50Us: number;
    p99Us: number;
    problems: number;
  };
  return {
    requests: raw.requests,
    rps: raw.durationUs > 0 ? raw.requests / (raw.durationUs / 1e6) : 0,
    p50Ms: raw.p50Us / 1000,
    p99Ms: raw.p99Us / 1000,
    problems: raw.problems,
  };
}

/** The path and headers of a GET, or the path of the POST (its body and key change per request). */
export function requestLine(endpoint: Endpoint): { method: "GET" | "POST"; path: string } {
  return { method: endpoint === "post" ? "POST" : "GET", path: PATHS[endpoint] };
}
