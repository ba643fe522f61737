/**
 * The admin API's guards: one length rule for admin tokens, failed
 * authentication throttled per client address, and `admin: false`.
 */
import { describe, expect, test } from "vitest";
import { createAdminThrottle } from "../../src/http/admin-throttle.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { bearer, DEMO_TOKEN, expectProblem, send, startSimulator } from "../support/http.ts";

const ADMIN_TOKEN = "admin-token-hardening-1";

describe("admin token rule", () => {
  test("createSimulator refuses an admin token shorter than 16 characters", async () => {
    await expect(createSimulator({ adminToken: "fifteen-chars-x" })).rejects.toThrow(/adminToken must be 16–256/);
    const sim = await createSimulator({ adminToken: "sixteen-chars-xy" });
    expect(sim.adminToken).toBe("sixteen-chars-xy");
  });

  test("a generated admin token has at least 32 characters", async () => {
    const sim = await createSimulator();
    expect(sim.adminToken.length).toBeGreaterThanOrEqual(32);
    expect(sim.adminToken).toMatch(/^[\x21-\x7E]+$/);
  });
});

describe("throttled admin authentication", () => {
  test("after 10 wrong tokens an address gets 429 too_many_attempts with Retry-After, even with the right token", async () => {
    const sim = await startSimulator({ adminToken: ADMIN_TOKEN });
    const attacker = "198.51.100.7";
    for (let i = 0; i < 10; i++) {
      const reply = await send(sim, "/_sim/clock", { headers: bearer(`wrong-token-${i}`), from: attacker });
      expectProblem(reply, 401, "invalid_token");
    }
    const throttled = await send(sim, "/_sim/clock", { headers: bearer("wrong-token-x"), from: attacker });
    expectProblem(throttled, 429, "too_many_attempts");
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A right guess now would tell the attacker nothing: it is refused the same way.
    expectProblem(
      await send(sim, "/_sim/clock", { headers: bearer(ADMIN_TOKEN), from: attacker }),
      429,
      "too_many_attempts",
    );
    // Other addresses, and the public API, are not affected.
    expect((await send(sim, "/_sim/clock", { headers: bearer(ADMIN_TOKEN), from: "203.0.113.9" })).status).toBe(200);
    expect((await send(sim, "/v1/balance", { headers: bearer(DEMO_TOKEN), from: attacker })).status).toBe(200);
  });

  test("a customer token on the admin API (403) and a malformed header are not counted as guesses", async () => {
    const sim = await startSimulator({ adminToken: ADMIN_TOKEN });
    const from = "198.51.100.8";
    for (let i = 0; i < 12; i++) {
      expectProblem(await send(sim, "/_sim/clock", { headers: bearer(DEMO_TOKEN), from }), 403, "forbidden");
      expectProblem(
        await send(sim, "/_sim/clock", { headers: { authorization: "Basic x" }, from }),
        401,
        "invalid_token",
      );
    }
    expect((await send(sim, "/_sim/clock", { headers: bearer(ADMIN_TOKEN), from })).status).toBe(200);
  });

  test("the window slides: failures older than the window no longer count", () => {
    let now = 0;
    const throttle = createAdminThrottle({ maxFailures: 3, windowMs: 1_000, now: () => now });
    for (const at of [0, 100, 200]) {
      now = at;
      throttle.recordFailure("a");
    }
    expect(throttle.retryAfterSeconds("a")).toBe(1);
    expect(throttle.retryAfterSeconds("b")).toBe(0);
    now = 1_001; // the failure at 0 has left the window
    expect(throttle.retryAfterSeconds("a")).toBe(0);
    throttle.recordFailure("a");
    expect(throttle.retryAfterSeconds("a")).toBe(1);
  });

  test("memory stays bounded: past maxAddresses the least recently failing address is forgotten", () => {
    const throttle = createAdminThrottle({ maxFailures: 1, maxAddresses: 2, now: () => 0 });
    for (const address of ["a", "b", "c"]) throttle.recordFailure(address);
    expect(throttle.retryAfterSeconds("a")).toBe(0);
    expect(throttle.retryAfterSeconds("b")).toBeGreaterThan(0);
    expect(throttle.retryAfterSeconds("c")).toBeGreaterThan(0);
  });
});

describe("admin: false", () => {
  test("/_sim answers 404 like any unknown path, with the admin token too; the public API works", async () => {
    const sim = await startSimulator({ adminToken: ADMIN_TOKEN, admin: false });
    for (const path of ["/_sim/clock", "/_sim/customers", "/_sim/reset"]) {
      expectProblem(await send(sim, path, { headers: bearer(ADMIN_TOKEN) }), 404, "not_found");
    }
    expect((await send(sim, "/v1/balance", { headers: bearer(DEMO_TOKEN) })).status).toBe(200);
  });
});
