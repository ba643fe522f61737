import { fc, test } from "@fast-check/vitest";
import { expect, it } from "vitest";
import { createCreationIndex, type Indexed, type PageQuery } from "../../src/store/creation-index.ts";

function indexOf(count: number) {
  const live = new Map<string, Indexed>();
  let lookups = 0;
  const index = createCreationIndex<Indexed>((id) => {
    lookups++;
    return live.get(id);
  });
  for (let i = 0; i < count; i++) {
    const record = { id: `r${i}`, customerId: i % 2 === 0 ? "even" : "odd", createdAt: i };
    live.set(record.id, record);
    index.add(record);
  }
  const remove = (id: string) => {
    const record = live.get(id) as Indexed;
    live.delete(id);
    index.removed(record.customerId);
  };
  return { index, remove, lookups: () => lookups };
}

it("looks past the removed oldest records once, not on every page from the start", () => {
  // 900 removed: under the 1,024 dead slots that would compact the sequence.
  const { index, remove, lookups } = indexOf(3_000);
  for (let i = 0; i < 900; i++) remove(`r${i}`);

  const first = index.page({ limit: 10 });
  expect(first.items.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `r${900 + i}`));
  expect(lookups()).toBe(910);

  const before = lookups();
  const again = index.page({ limit: 10 });
  expect(again.items).toEqual(first.items);
  expect(lookups() - before).toBe(10);
});

it("still finds a record removed from the middle skipped, and pages per customer past the dead front", () => {
  const { index, remove } = indexOf(40);
  for (let i = 0; i < 10; i++) remove(`r${i}`);
  remove("r15");
  index.page({ limit: 5 });
  expect(index.page({ limit: 6 }).items.map((r) => r.id)).toEqual(["r10", "r11", "r12", "r13", "r14", "r16"]);
  expect(index.page({ customerId: "odd", limit: 3 }).items.map((r) => r.id)).toEqual(["r11", "r13", "r17"]);
  // A cursor from before the dead front still starts at the first live record after it.
  const page = index.page({ limit: 2 });
  expect(index.page({ limit: 2, cursor: page.nextCursor ?? undefined }).items.map((r) => r.id)).toEqual(["r12", "r13"]);
});

it("looks past the dead front even when an old record outlives it (an order pending for hours)", () => {
  const { index, remove, lookups } = indexOf(3_000);
  // r0 and r500 stay; the 898 others before r900 are removed.
  for (let i = 1; i < 900; i++) if (i !== 500) remove(`r${i}`);

  const first = index.page({ limit: 4 });
  expect(first.items.map((r) => r.id)).toEqual(["r0", "r500", "r900", "r901"]);

  const before = lookups();
  const again = index.page({ limit: 4 });
  expect(again.items).toEqual(first.items);
  expect(lookups() - before).toBeLessThanOrEqual(6);

  // Paging on from a pinned record continues in creation order; a pinned record removed is skipped.
  const second = index.page({ limit: 1 });
  expect(index.page({ limit: 2, cursor: second.nextCursor ?? undefined }).items.map((r) => r.id)).toEqual([
    "r500",
    "r900",
  ]);
  remove("r500");
  expect(index.page({ limit: 2 }).items.map((r) => r.id)).toEqual(["r0", "r900"]);
});

/**
 * What the store's eviction does: pages from the oldest, following cursors
 * within the batch, until `evict` has taken `wanted` records.
 */
function evictBatch(index: ReturnType<typeof indexOf>["index"], wanted: number, evict: (id: string) => boolean): void {
  let taken = 0;
  let cursor: string | null | undefined;
  do {
    const page = index.page({ limit: 256, ...(cursor == null ? {} : { cursor }) });
    for (const record of page.items) if (taken < wanted && evict(record.id)) taken++;
    cursor = page.nextCursor;
  } while (taken < wanted && cursor !== null);
}

/** Every page from the first, following cursors; the ids of each. */
function allPages(index: ReturnType<typeof indexOf>["index"], query: Omit<PageQuery, "cursor">): string[][] {
  const pages: string[][] = [];
  let cursor: string | null | undefined;
  do {
    const page = index.page({ ...query, ...(cursor == null ? {} : { cursor }) });
    pages.push(page.items.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 10_000);
  return pages;
}

test.prop(
  [
    fc.integer({ min: 0, max: 400 }),
    fc.array(fc.nat(399)),
    fc.nat(60),
    fc.integer({ min: 1, max: 30 }),
    fc.constantFrom(undefined, "even", "odd"),
    fc.option(fc.nat(400), { nil: undefined }),
    fc.option(fc.nat(400), { nil: undefined }),
  ],
  { numRuns: 200 },
)(
  "pages newest first through what oldest first lists, reversed, past removals and pinned records",
  (count, removals, frontPages, limit, customerId, from, to) => {
    const { index, remove } = indexOf(count);
    for (const i of new Set(removals)) if (i < count) remove(`r${i}`);
    // Oldest-first pages move the dead front and pin the records left behind it.
    for (let i = 0; i < frontPages; i++) index.page({ limit: 1 });
    const query = { limit, customerId, from, to };
    const oldest = allPages(index, query).flat();
    const newest = allPages(index, { ...query, newestFirst: true });
    expect(newest.flat()).toEqual([...oldest].reverse());
    expect(newest.slice(0, -1).every((page) => page.length === limit)).toBe(true);
  },
);

it("bounds what one newest-first page examines, and goes on from its cursor", () => {
  const { index, lookups } = indexOf(12_000);
  const first = index.page({ limit: 10, newestFirst: true, customerId: undefined }, () => false);
  expect(first.items).toEqual([]);
  expect(lookups()).toBe(5_000);
  const rest = index.page({ limit: 10, newestFirst: true, cursor: first.nextCursor ?? undefined });
  expect(rest.items.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `r${6_999 - i}`));
});

test.prop(
  [
    fc.integer({ min: 2_100, max: 4_000 }),
    fc.uniqueArray(fc.nat(3_999), { maxLength: 90 }),
    fc.uniqueArray(fc.nat(3_999), { maxLength: 200 }),
    fc.integer({ min: 50, max: 400 }),
  ],
  { numRuns: 25 },
)(
  "lists exactly the records kept through evictions of the oldest, compactions and records that outlive them",
  (count, longLived, middle, batch) => {
    const { index, remove } = indexOf(count);
    const kept = new Set(Array.from({ length: count }, (_, i) => `r${i}`));
    const outlives = new Set(longLived.map((i) => `r${i}`));
    const drop = (id: string): boolean => {
      if (!kept.delete(id)) return false;
      remove(id);
      return true;
    };
    for (let step = 0; kept.size > outlives.size + batch; step++) {
      evictBatch(index, batch, (id) => !outlives.has(id) && drop(id));
      // Now and then a record removed out of order.
      const stray = middle[step % Math.max(middle.length, 1)];
      if (stray !== undefined && step % 3 === 0) drop(`r${stray}`);
    }
    const expected = [...kept].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    expect(allPages(index, { limit: 97 }).flat()).toEqual(expected);
    expect(allPages(index, { limit: 97, newestFirst: true }).flat()).toEqual([...expected].reverse());
    const odd = expected.filter((id) => Number(id.slice(1)) % 2 === 1);
    expect(allPages(index, { limit: 41, customerId: "odd" }).flat()).toEqual(odd);
  },
);

it("compacts away the evicted oldest records without looking each one up", () => {
  const { index, remove, lookups } = indexOf(4_000);
  // r7 outlives the rest; everything else up to r2100 is evicted, oldest first, as the scan passes it.
  const removals: number[] = [];
  for (let round = 0; round < 21; round++) {
    evictBatch(index, 100, (id) => {
      if (id === "r7") return false;
      const before = lookups();
      remove(id);
      removals.push(lookups() - before);
      return true;
    });
  }
  // A compaction looks up at most the 64 records pinned at the front, never the thousands it drops.
  expect(removals).toHaveLength(2_100);
  expect(Math.max(...removals)).toBeLessThanOrEqual(64);
  expect(removals.filter((n) => n > 0).length).toBeGreaterThan(0);
  expect(index.page({ limit: 3 }).items.map((r) => r.id)).toEqual(["r7", "r2101", "r2102"]);
  expect(index.page({ limit: 2, customerId: "odd" }).items.map((r) => r.id)).toEqual(["r7", "r2101"]);
});
