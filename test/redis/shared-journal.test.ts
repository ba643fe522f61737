/**
 * The request journal of simulators sharing a Redis store: the admin API of
 * any instance pages through the requests made on every instance, with the
 * same filters and cursors as one instance's journal, capped at the journal
 * limit; a reset on one clears it for all.
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/http/journal.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { admin, bearer, send } from "../support/http.ts";
import { redisSkipReason } from "../support/redis.ts";
import { placeOrderOn, SHARED_TOKEN, useRedisSimulators } from "../support/redis-simulators.ts";

const skip = redisSkipReason();

const journal = async (sim: Simulator, query = ""): Promise<{ entries: JournalEntry[]; next_cursor: string | null }> =>
  (await admin(sim, `/journal${query}`)).body;

describe.skipIf(skip !== undefined)(`a shared journal${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const simulators = useRedisSimulators();

  it("either instance's admin API lists the requests made on both, in order of arrival", async () => {
    const [one, two] = (await simulators(2)) as [Simulator, Simulator];
    expect((await placeOrderOn(one, "journal-1")).status).toBe(200);
    expect((await send(two.url, "/v1/airtime/nowhere", { headers: bearer(SHARED_TOKEN) })).status).toBe(404);
    expect((await placeOrderOn(two, "journal-2")).status).toBe(200);
    const fromOne = await journal(one, "?customer=demo");
    expect(fromOne.entries.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      "POST /v1/airtime 200",
      "GET /v1/airtime/nowhere 404",
      "POST /v1/airtime 200",
    ]);
    expect(await journal(two, "?customer=demo")).toEqual(fromOne);
    expect((await journal(one, "?status=404")).entries.map((entry) => entry.path)).toEqual(["/v1/airtime/nowhere"]);
    // Each process's own journal keeps only its own requests.
    expect(two.journal.list({ customerId: "demo" })).toHaveLength(2);
  });

  it("pages back through both instances' requests: each cursor leads to older ones, none lost or repeated", async () => {
    const [one, two] = (await simulators(2)) as [Simulator, Simulator];
    for (let i = 0; i < 9; i++) expect((await placeOrderOn(i % 2 === 0 ? one : two, `paged-${i}`)).status).toBe(200);
    const everything = (await journal(two, "?customer=demo&limit=1000")).entries;
    expect(everything).toHaveLength(9);
    const paged: JournalEntry[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof journal>> = await journal(
        paged.length % 2 === 0 ? one : two,
        `?customer=demo&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      paged.unshift(...page.entries);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(paged).toEqual(everything);
    expect(new Set(paged.map((entry) => entry.id)).size).toBe(9);
  });

  it("keeps the newest entries up to the journal limit", async () => {
    const [one, two] = (await simulators(2, { journalLimit: 5 })) as [Simulator, Simulator];
    for (let i = 0; i < 12; i++) expect((await placeOrderOn(i % 2 === 0 ? one : two, `capped-${i}`)).status).toBe(200);
    const kept = (await journal(one, "?limit=1000")).entries;
    expect(kept).toHaveLength(5);
    expect(kept.map((entry) => entry.id)).toEqual([8, 9, 10, 11, 12]);
  });

  it("a reset on one instance clears the journal of all", async () => {
    const [one, two] = (await simulators(2)) as [Simulator, Simulator];
    expect((await placeOrderOn(one, "before-reset")).status).toBe(200);
    expect((await placeOrderOn(two, "before-reset-2")).status).toBe(200);
    expect((await admin(two, "/reset", { method: "POST" })).status).toBeLessThan(300);
    const after = (await journal(one)).entries;
    // Only the admin requests made since remain.
    expect(after.filter((entry) => entry.path.startsWith("/v1/"))).toEqual([]);
  });
});
