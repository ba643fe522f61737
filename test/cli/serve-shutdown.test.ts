/**
 * `serve`'s shutdown as a real process: SIGTERM or SIGINT stops accepting,
 * lets work in flight finish within `--shutdown-timeout`, cuts off what
 * stalls, says what was left, and a second signal exits at once. Timings are
 * not asserted tightly: the deadline is short and the test timeouts generous.
 */
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { startServe } from "../support/processes.ts";

const DEMO_TOKEN = "demo-token-shutdown-5f1e";
const ADMIN_TOKEN = "admin-token-shutdown-9c3d27";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(args: readonly string[]): Promise<{ server: RunningProcess; url: string }> {
  const started = await startServe(["--demo-token", DEMO_TOKEN, "--admin-token", ADMIN_TOKEN, ...args]);
  cleanups.push(() => started.server.stop(1_000));
  return started;
}

function orderBody(reference: string): string {
  return JSON.stringify({ account: "0712345678", amount: 10, currency: "KES", reference });
}

/** A raw connection that sends an order's headers and half its body, then stalls. */
function stalledUpload(url: string, reference: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const body = orderBody(reference);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        [
          "POST /v1/airtime HTTP/1.1",
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${DEMO_TOKEN}`,
          "Content-Type: application/json",
          `Idempotency-Key: ${reference}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
          "",
          body.slice(0, body.length / 2),
        ].join("\r\n"),
      );
      resolve(socket);
    });
    socket.on("error", () => undefined);
    socket.once("error", reject);
    cleanups.push(() => socket.destroy());
  });
}

/** Waits for a line, failing with everything printed so far. */
async function expectOutput(server: RunningProcess, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const seen = await server.waitFor(pattern, timeoutMs);
  if (seen.kind !== "matched") throw new Error(`no ${pattern} (${seen.kind}):\n${server.output()}`);
}

describe("serve: graceful shutdown", () => {
  test("SIGTERM with a stalled upload exits within --shutdown-timeout, cutting the upload off", async () => {
    const { server, url } = await serve(["--shutdown-timeout", "1s"]);
    const socket = await stalledUpload(url, "stalled-1");
    const socketClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    // The request is in the server's hands before the signal (its headers arrived).
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await socketClosed;
    const out = server.output();
    expect(out).toMatch(/SIGTERM: closing \(finishing work in flight for up to 1s/);
    expect(out).toMatch(/closed; left: 1 requests cut off, 0 pending orders/);
  }, 30_000);

  test("a slow request in flight when SIGTERM arrives completes normally", async () => {
    const { server, url } = await serve(["--shutdown-timeout", "20s", "--clock", "virtual"]);
    const socket = await stalledUpload(url, "slow-1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
    });
    const answered = new Promise<void>((resolve) => socket.once("end", () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill("SIGTERM");
    await expectOutput(server, /SIGTERM: closing/);
    const body = orderBody("slow-1");
    socket.write(body.slice(body.length / 2));
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"reference":"slow-1"');
    expect(await server.exited).toBe(0);
    // Nothing was cut off; the order placed during shutdown is reported pending (virtual clock).
    expect(server.output()).toMatch(/closed; left: 0 requests cut off, 1 pending orders/);
    await expect(fetch(`${url}/v1/balance`)).rejects.toThrow();
  }, 30_000);

  test("a second SIGINT exits at once with 130", async () => {
    const { server, url } = await serve(["--shutdown-timeout", "5m"]);
    await stalledUpload(url, "stalled-2");
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill("SIGINT");
    await expectOutput(server, /SIGINT: closing/);
    server.child.kill("SIGINT");
    const code = await server.exited;
    expect(code).toBe(130);
    expect(server.output()).toContain("SIGINT again: exiting at once");
    expect(server.output()).not.toContain("closed; left");
  }, 30_000);

  test("pending work is logged: a webhook attempt cut off at the deadline and its undelivered webhook", async () => {
    // A receiver that never answers.
    const hanging: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => {
      hanging.closeAllConnections();
      return new Promise((resolve) => hanging.close(resolve));
    });
    const address = hanging.address() as { port: number };
    const { server, url } = await serve([
      "--shutdown-timeout",
      "1s",
      "--timing",
      "10ms",
      "--webhook-url",
      `http://127.0.0.1:${address.port}/hooks`,
      "--webhook-timeout",
      "60s",
    ]);
    const received = new Promise<void>((resolve) => hanging.once("request", () => resolve()));
    const placed = await fetch(`${url}/v1/airtime`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${DEMO_TOKEN}`,
        "content-type": "application/json",
        "idempotency-key": "hooked-1",
      },
      body: orderBody("hooked-1"),
    });
    expect(placed.status).toBe(200);
    await received;
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(
      /closed; left: 0 requests cut off, 0 pending orders, 1 undelivered webhooks, 1 webhook attempts cut off/,
    );
  }, 30_000);
});
