// The transcript of a run must hold only that run's requests: an exchange is told to the
// listener set when its request started, even when it ends after the next run began.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { createHttpClient, type Exchange } from "../../src/harness/http-client.ts";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))));

test("a request still in flight when the listener changes goes to the listener of its start", async () => {
  let answer: (() => void) | undefined;
  server = createServer((_req, res) => {
    answer = () => res.end("{}");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const client = createHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  const earlier: Exchange[] = [];
  const later: Exchange[] = [];
  client.onExchange((exchange) => earlier.push(exchange));
  const inFlight = client.send({ method: "GET", path: "/slow" });
  await expect.poll(() => answer).toBeDefined();
  client.onExchange((exchange) => later.push(exchange));
  answer?.();
  await inFlight;

  expect(earlier.map((exchange) => exchange.request.path)).toEqual(["/slow"]);
  expect(later).toEqual([]);
});
