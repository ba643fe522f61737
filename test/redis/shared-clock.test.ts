/**
 * Two simulators on one Redis with a virtual clock share that clock: an
 * order placed on one stays pending until an advance on either, which makes
 * it final once; the other then reads the new time and the final status;
 * advances on both at once add up, and every lifecycle step runs once.
 */
import { describe, expect, it } from "vitest";
import type { StatusChange } from "../../src/domain/service-types.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { admin, bearer, send } from "../support/http.ts";
import { redisSkipReason } from "../support/redis.ts";
import { placeOrderOn as order, SHARED_TOKEN as TOKEN, useRedisSimulators } from "../support/redis-simulators.ts";

const skip = redisSkipReason();
const START = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

const lookup = (sim: Simulator, reference: string) =>
  send(sim.url, `/v1/airtime/${reference}`, { headers: bearer(TOKEN) });

describe.skipIf(skip !== undefined)(`a shared virtual clock${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const simulators = useRedisSimulators();

  /** Two simulators on a fresh database, and every final status change either of them made. */
  async function pair(timing = "2s"): Promise<{ one: Simulator; two: Simulator; finals: StatusChange[] }> {
    const finals: StatusChange[] = [];
    const [one, two] = (await simulators(2, {
      startAt: START,
      timing,
      plugins: [
        () => ({
          name: "final-counter",
          events: {
            async statusChanged(change) {
              if (change.final) finals.push(change);
            },
          },
        }),
      ],
    })) as [Simulator, Simulator];
    return { one, two, finals };
  }

  it("an order placed on one stays pending, and an advance on the other makes it final once, seen by both", async () => {
    const { one, two, finals } = await pair();
    expect((await order(two, "placed-on-two")).status).toBe(200);
    await one.clock.advance(1_999);
    expect((await lookup(two, "placed-on-two")).body.status).toBe(0);
    const advanced = await admin(one, "/clock/advance", { method: "POST", body: { ms: 1 } });
    expect(advanced.body.iso).toBe("2030-01-01T00:00:02.000Z");
    expect(two.clock.now()).toBe(START + 2_000);
    const final = (await lookup(two, "placed-on-two")).body;
    expect(final).toMatchObject({ status: 20, updatedAt: "2030-01-01T00:00:02.000Z" });
    expect(final.history.map((entry: { status: number }) => entry.status)).toEqual([0, 20]);
    expect(finals).toHaveLength(1);
    expect((await admin(two, "/clock")).body.iso).toBe("2030-01-01T00:00:02.000Z");
  });

  it("advances of 1 h on both at once move the clock by 2 h and make every order final once", async () => {
    const { one, two, finals } = await pair("90m");
    for (let i = 0; i < 20; i++) expect((await order(i % 2 === 0 ? one : two, `hour-${i}`)).status).toBe(200);
    await Promise.all([one.clock.advance(HOUR), two.clock.advance(HOUR)]);
    expect([one.clock.now(), two.clock.now()]).toEqual([START + 2 * HOUR, START + 2 * HOUR]);
    expect(finals).toHaveLength(20);
    expect(new Set(finals.map((change) => change.order.id)).size).toBe(20);
    // Each became final 90 min after it was placed, at the start.
    expect(new Set(finals.map((change) => change.order.updatedAt))).toEqual(new Set([START + 90 * 60_000]));
  });

  it("an advance over many orders placed on both instances makes them all final once", async () => {
    const { one, two, finals } = await pair("1s..30s");
    const references: string[] = [];
    for (let i = 0; i < 200; i++) {
      const reference = `many-${i}`;
      references.push(reference);
      expect((await order(i % 2 === 0 ? one : two, reference)).status).toBe(200);
      if (i % 20 === 19) await (i % 40 === 19 ? one : two).clock.advance(500);
    }
    await two.clock.advance(60_000);
    expect(finals).toHaveLength(200);
    expect(new Set(finals.map((change) => change.order.reference))).toEqual(new Set(references));
    const listed = await admin(one, "/orders?limit=500");
    expect(listed.body.orders.every((stored: { status: number }) => stored.status === 20)).toBe(true);
  });
});
