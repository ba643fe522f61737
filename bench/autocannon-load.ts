/**
 * autocannon in its own process, so that it never shares the bench's event
 * loop: `tsx bench/autocannon-load.ts '{"url":…,"endpoint":…,"durationS":…}'`.
 * Used when wrk is not installed, and for the fixed-rate runs (autocannon's
 * `overallRate` paces the requests; wrk cannot, and wrk2 is not packaged by
 * Debian). Prints one line, `AUTOCANNON_RESULT {LoadResult}`.
 */
import autocannon from "autocannon";
import { BENCH_TOKEN, type Endpoint, type LoadResult, orderBody, requestLine } from "./requests.ts";

export interface AutocannonRun {
  readonly url: string;
  readonly endpoint: Endpoint;
  readonly durationS: number;
  readonly connections: number;
  /** Requests per second over all connections; unpaced when absent. */
  readonly overallRate?: number;
  readonly prefix: string;
}

const run = JSON.parse(process.argv[2] ?? "{}") as AutocannonRun;
const { method, path } = requestLine(run.endpoint);
let sequence = 0;
const result = await autocannon({
  url: `${run.url}${path}`,
  connections: run.connections,
  duration: run.durationS,
  ...(run.overallRate === undefined ? {} : { overallRate: run.overallRate }),
  requests: [
    {
      method,
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
      ...(method === "POST"
        ? {
            setupRequest(request) {
              // A new order every time: fresh idempotency key and reference.
              const key = `${run.prefix}-${++sequence}`;
              request.headers = { ...request.headers, "idempotency-key": key };
              request.body = orderBody(key);
              return request;
            },
          }
        : {}),
    },
  ],
});
const report: LoadResult = {
  requests: result.requests.total,
  rps: result.requests.average,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  problems: result.non2xx + result.errors + result.timeouts,
};
console.log(`AUTOCANNON_RESULT ${JSON.stringify(report)}`);
