import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import { admin, balanceOf, bearer, DEMO_TOKEN, orderBody, placeOrder, send, startSimulator } from "../support/http.ts";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ clock: "virtual", startAt: Date.UTC(2026, 0, 1) });
});
afterAll(() => sim.close());

const lookup = (reference: string) =>
  send(sim, `/v1/airtime/${encodeURIComponent(reference)}`, { headers: bearer(DEMO_TOKEN) });

test("an order stays 0 Pending until the clock is advanced through the admin API, then is final", async () => {
  const body = orderBody();
  await placeOrder(sim, body);
  // Real time has passed while serving those requests; virtual time has not.
  expect((await admin(sim, "/clock")).body.iso).toBe("2026-01-01T00:00:00.000Z");
  expect((await lookup(body.reference as string)).body.status).toBe(0);
  await admin(sim, "/clock/advance", { method: "POST", body: { ms: 1_999 } });
  expect((await lookup(body.reference as string)).body.status).toBe(0);
  const clock = await admin(sim, "/clock/advance", { method: "POST", body: { ms: 1 } });
  expect(clock.body.iso).toBe("2026-01-01T00:00:02.000Z");
  const final = (await lookup(body.reference as string)).body;
  expect(final).toMatchObject({ status: 20, message: "Success", updatedAt: "2026-01-01T00:00:02.000Z" });
  expect(final.history.map((h: { status: number }) => h.status)).toEqual([0, 20]);
});

test("an idempotency key is kept 24 h of simulator time, then it is free", async () => {
  const body = orderBody({ amount: 10 });
  const first = await placeOrder(sim, body, { "idempotency-key": "day-key" });
  await sim.clock.advance(24 * 3_600_000 - 1);
  const replay = await placeOrder(sim, body, { "idempotency-key": "day-key" });
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.id).toBe(first.body.id);
  await sim.clock.advance(1);
  // Expired: the key binds nothing now; the same reference is still taken, a new one is accepted.
  const fresh = orderBody({ amount: 10 });
  const before = await balanceOf(sim);
  const afterExpiry = await placeOrder(sim, { ...fresh }, { "idempotency-key": "day-key" });
  expect(afterExpiry.status).toBe(200);
  expect(afterExpiry.headers.get("idempotent-replayed")).toBeNull();
  expect(afterExpiry.body.id).not.toBe(first.body.id);
  expect(await balanceOf(sim)).toBe(before - 10);
});
