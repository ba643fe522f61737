/**
 * `stateFile`: what a simulator holds survives `close()` and a new start on
 * the same file — balances, orders with their history, idempotency keys,
 * pending lifecycle steps and undelivered webhooks — and a file that cannot
 * be loaded is refused whole.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { StateFileError } from "../../src/simulator/state-file.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { bearer, send } from "../support/http.ts";

const TOKEN = "state-file-token-0001";
const START = Date.UTC(2026, 0, 1);

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

function stateFilePath(): string {
  return join(mkdtempSync(join(tmpdir(), "airtime-state-")), "state.json");
}

async function start(stateFile: string, webhookUrl: string, secret: string): Promise<Simulator> {
  const sim = await createSimulator({
    clock: "virtual",
    startAt: START,
    seed: 5,
    timing: "2s",
    stateFile,
    demo: { token: TOKEN, balance: 1_000, webhook: { url: webhookUrl, secrets: [secret] } },
    webhooks: { schedule: "0,1s,1m", timeout: "2s", jitter: 0 },
    scenarios: false,
  });
  await sim.listen(0);
  return sim;
}

function order(sim: Simulator, reference: string, key: string) {
  return send(sim.url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(TOKEN), "idempotency-key": key },
    body: { account: "0712345678", amount: 100, currency: "KES", reference },
  });
}

async function receiver(secret: string): Promise<WebhookInbox> {
  const inbox = createWebhookInbox({ secret });
  await inbox.listen();
  open.push(inbox);
  return inbox;
}

describe("the state file", () => {
  it("brings back balances, orders, keys, pending steps and undelivered webhooks after a restart", async () => {
    const file = stateFilePath();
    const secret = generateWebhookSecret();
    const inbox = await receiver(secret);
    inbox.respondWith(503); // down for the first run: every attempt fails

    const first = await start(file, inbox.url, secret);
    const final = await order(first, "made-final", "key-final");
    expect(final.status).toBe(200);
    await first.clock.advance(2_000);
    const pending = await order(first, "still-pending", "key-pending");
    expect(pending.status).toBe(200);
    const before = await send(first.url, "/v1/balance", { headers: bearer(TOKEN) });
    const finalBefore = await send(first.url, "/v1/airtime/made-final", { headers: bearer(TOKEN) });
    expect(finalBefore.body).toMatchObject({ status: 20 });
    const clockBefore = first.clock.now();
    await first.close();

    inbox.respondWith(200);
    const second = await start(file, inbox.url, secret);
    open.push(second);
    expect(second.clock.now()).toBe(clockBefore);
    expect((await send(second.url, "/v1/balance", { headers: bearer(TOKEN) })).body).toEqual(before.body);
    expect((await send(second.url, "/v1/airtime/made-final", { headers: bearer(TOKEN) })).body).toEqual(
      finalBefore.body,
    );

    // A replay of a saved key answers with the saved order and debits nothing.
    const replay = await order(second, "made-final", "key-final");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((replay.body as { id: string }).id).toBe((final.body as { id: string }).id);
    expect((await send(second.url, "/v1/balance", { headers: bearer(TOKEN) })).body).toEqual(before.body);

    // The pending order's step and the failed webhooks' retries were saved with their times.
    await second.clock.advance(2_000);
    expect((await send(second.url, "/v1/airtime/still-pending", { headers: bearer(TOKEN) })).body).toMatchObject({
      status: 20,
    });
    await second.clock.advance(60_000);
    await inbox.waitFor("made-final", { status: 20 });
    await inbox.waitFor("still-pending", { status: 20 });

    // Ids drawn after the restart never repeat a saved one.
    const fresh = await order(second, "after-restart", "key-after");
    expect((fresh.body as { id: string }).id).not.toBe((final.body as { id: string }).id);
    expect((fresh.body as { id: string }).id).not.toBe((pending.body as { id: string }).id);
  });

  it("starts empty when the file does not exist yet, and writes it on close", async () => {
    const file = stateFilePath();
    const secret = generateWebhookSecret();
    const inbox = await receiver(secret);
    const sim = await start(file, inbox.url, secret);
    await order(sim, "r1", "k1");
    await sim.close();
    const saved = JSON.parse(readFileSync(file, "utf8")) as { version: number; store: { orders: unknown[] } };
    expect(saved.version).toBe(1);
    expect(saved.store.orders).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{ nope", /is not JSON/],
    ["another version", JSON.stringify({ version: 99 }), /at version: this simulator reads state files of version 1/],
    ["a wrong field", JSON.stringify({ version: 1, savedAt: "x", seed: 1, restarts: 0 }), /at clock/],
  ])("refuses a file that is %s, naming the file", async (_case, text, pattern) => {
    const file = stateFilePath();
    writeFileSync(file, text);
    const started = createSimulator({ stateFile: file, clock: "virtual" });
    await expect(started).rejects.toBeInstanceOf(StateFileError);
    await expect(started).rejects.toThrow(pattern);
    await expect(started).rejects.toThrow(file);
  });
});
