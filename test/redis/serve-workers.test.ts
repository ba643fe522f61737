/**
 * `serve --workers N`: N processes on one port sharing the Redis store. Any
 * worker accepts the tokens the banner prints and sees the same balance;
 * with the memory store it refuses, saying why.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, bearer, send } from "../support/http.ts";
import { runCli, startServe } from "../support/processes.ts";
import { redisSkipReason, startRedis, type TestRedis } from "../support/redis.ts";

const skip = redisSkipReason();

/** The processes whose parent is `pid`, from /proc (the 4th field of /proc/PID/stat is the parent). */
function childrenOf(pid: number): string[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === String(pid);
      } catch {
        return false; // gone meanwhile
      }
    });
}

describe("serve --workers", () => {
  it("refuses more than one worker on the memory store, with exit status 2", async () => {
    const server = runCli(["serve", "--port", "0", "--workers", "2"]);
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain("--workers 2 needs a shared store (--store redis://HOST:PORT/DB)");
  });

  it("stops every worker and exits 2 when the workers cannot start (Redis unreachable)", async () => {
    const server = runCli(["serve", "--port", "0", "--workers", "2", "--store", "redis://127.0.0.1:1/0"]);
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain("cannot reach Redis at redis://127.0.0.1:1/0");
  });

  describe.skipIf(skip !== undefined)(`on Redis${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it("runs two processes on one port that share balances, tokens and keys", { timeout: 60_000 }, async () => {
      const { server, url } = await startServe(["--store", redis.url, "--workers", "2", "--quiet"]);
      try {
        const token = /demo customer: demo, token: (\S+)/.exec(server.output())?.[1] ?? "";
        const adminToken = /admin token: (\S+)/.exec(server.output())?.[1] ?? "";
        expect(token).not.toBe("");
        // Two worker processes under the one serve process.
        await expect.poll(() => childrenOf(server.child.pid ?? 0).length, { timeout: 20_000 }).toBe(2);
        const replies = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            send(url, "/v1/airtime", {
              method: "POST",
              headers: { ...bearer(token), "idempotency-key": `w-${i % 20}` },
              body: { account: "0712345678", amount: 10, currency: "KES", reference: `w-${i % 20}` },
            }),
          ),
        );
        expect(replies.filter((reply) => reply.status !== 200)).toEqual([]);
        expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(20);
        expect(await balanceOf(url, token)).toBe(100_000 - 20 * 10);
        const orders = await send(url, "/_sim/orders?limit=100", { headers: bearer(adminToken) });
        expect(orders.body.orders).toHaveLength(20);
      } finally {
        await server.stop(10_000);
      }
      expect(await server.exited).toBe(0);
    });
  });
});
