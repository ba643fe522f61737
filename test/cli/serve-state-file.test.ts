/**
 * `serve --state-file` as a real process: SIGTERM saves the state, and a new
 * `serve` on the same file goes on where the first stopped — balances,
 * orders and their history, idempotency keys, a pending order's lifecycle
 * and a webhook whose receiver was down.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { createWebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { bearer, send } from "../support/http.ts";
import { freePort, runCli, startServe } from "../support/processes.ts";

const DEMO_TOKEN = "demo-token-state-file-01";
const ADMIN_TOKEN = "admin-token-state-file-01";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(stateFile: string, webhookUrl: string, secret: string) {
  const started = await startServe([
    "--clock",
    "virtual",
    "--timing",
    "2s",
    "--state-file",
    stateFile,
    "--demo-token",
    DEMO_TOKEN,
    "--admin-token",
    ADMIN_TOKEN,
    "--webhook-url",
    webhookUrl,
    "--webhook-secret",
    secret,
    "--webhook-schedule",
    "0,1s,1m",
    "--quiet",
  ]);
  cleanups.push(() => started.server.stop(1_000));
  return started;
}

async function stop(server: RunningProcess): Promise<string> {
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  return server.output();
}

const order = (url: string, reference: string, key: string) =>
  send(url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(DEMO_TOKEN), "idempotency-key": key },
    body: { account: "0712345678", amount: 100, currency: "KES", reference },
  });
const advance = (url: string, ms: number) =>
  send(url, "/_sim/clock/advance", { method: "POST", headers: bearer(ADMIN_TOKEN), body: { ms } });
const get = (url: string, path: string) => send(url, path, { headers: bearer(DEMO_TOKEN) });

describe("serve --state-file", () => {
  test("a SIGTERM and a restart on the same file lose nothing", { timeout: 90_000 }, async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "airtime-serve-state-")), "state.json");
    const secret = generateWebhookSecret();
    const receiverPort = await freePort(); // nothing listens there during the first run
    const webhookUrl = `http://127.0.0.1:${receiverPort}/webhooks`;

    const first = await serve(stateFile, webhookUrl, secret);
    const final = await order(first.url, "final-before", "key-final");
    expect(final.status).toBe(200);
    expect((await advance(first.url, 2_000)).status).toBe(200);
    const pending = await order(first.url, "pending-before", "key-pending");
    expect(pending.status).toBe(200);
    const balance = (await get(first.url, "/v1/balance")).body;
    const finalOrder = (await get(first.url, "/v1/airtime/final-before")).body;
    expect(finalOrder).toMatchObject({ status: 20 });
    const history = (await send(first.url, "/_sim/orders?reference=final-before", { headers: bearer(ADMIN_TOKEN) }))
      .body;
    const output = await stop(first.server);
    expect(output).toContain(`state saved to ${stateFile}`);

    const inbox = createWebhookInbox({ secret, port: receiverPort });
    await inbox.listen();
    cleanups.push(() => inbox.close());
    const second = await serve(stateFile, webhookUrl, secret);

    expect((await get(second.url, "/v1/balance")).body).toEqual(balance);
    expect((await get(second.url, "/v1/airtime/final-before")).body).toEqual(finalOrder);
    expect(
      (await send(second.url, "/_sim/orders?reference=final-before", { headers: bearer(ADMIN_TOKEN) })).body,
    ).toEqual(history);

    const replay = await order(second.url, "final-before", "key-final");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(final.body.id);
    expect((await get(second.url, "/v1/balance")).body).toEqual(balance);

    expect((await advance(second.url, 2_000)).status).toBe(200);
    expect((await get(second.url, "/v1/airtime/pending-before")).body).toMatchObject({ status: 20 });
    expect((await advance(second.url, 60_000)).status).toBe(200);
    const delivered = await inbox.waitFor("final-before", { status: 20 });
    expect(delivered.verified).toBe(true);
    await inbox.waitFor("pending-before", { status: 20 });
  });

  test("a corrupt file stops serve with exit status 2, naming the file", { timeout: 30_000 }, async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "airtime-serve-state-")), "state.json");
    writeFileSync(stateFile, '{"version": 1, "truncated');
    const server = runCli(["serve", "--port", "0", "--state-file", stateFile]);
    cleanups.push(() => server.stop(1_000));
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain(`state file ${stateFile} is not JSON`);
  });
});
