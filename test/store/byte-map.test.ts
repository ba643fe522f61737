import { fc, it } from "@fast-check/vitest";
import { expect } from "vitest";
import { ByteMap } from "../../src/store/byte-map.ts";

/** What a ByteMap promises: a Map whose `set` moves a key to the back. */
class ModelMap {
  readonly map = new Map<string, string>();
  set(key: string, value: string): void {
    this.map.delete(key);
    this.map.set(key, value);
  }
}

type Step =
  { kind: "set"; key: string; value: string } | { kind: "delete"; key: string } | { kind: "sweep"; count: number };

// Few distinct keys, so sets and deletes hit keys already there; any Unicode, empty strings included.
const keys = fc.oneof(
  fc.constantFrom("", "a", "key-1", "cus\u0000ref", "ключ", "🔑"),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ minLength: 200, maxLength: 400 }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant("set" as const), key: keys, value: fc.string({ unit: "grapheme" }) }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), key: keys }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("sweep" as const), count: fc.nat(5) }), weight: 1 },
);

/** Deletes the `count` oldest entries while iterating, as the store's sweeps do. */
function sweep(map: { entries(): Iterable<[string, string]>; delete(key: string): boolean }, count: number) {
  let left = count;
  for (const [key] of map.entries()) {
    if (left-- === 0) return;
    map.delete(key);
  }
}

it.prop([fc.array(step, { maxLength: 300 })])("behaves as a Map whose set moves the key to the back", (steps) => {
  const bytes = new ByteMap();
  const model = new ModelMap();
  for (const s of steps) {
    if (s.kind === "set") {
      bytes.set(s.key, s.value);
      model.set(s.key, s.value);
    } else if (s.kind === "delete") {
      expect(bytes.delete(s.key)).toBe(model.map.delete(s.key));
    } else {
      sweep(bytes, s.count);
      sweep(model.map, s.count);
    }
    expect(bytes.size).toBe(model.map.size);
  }
  expect([...bytes.entries()]).toEqual([...model.map.entries()]);
  for (const [key, value] of model.map) {
    expect(bytes.get(key)).toBe(value);
    expect(bytes.has(key)).toBe(true);
  }
});

it("keeps 200,000 entries through arena and index rebuilds, in order, and answers after half are deleted", () => {
  const map = new ByteMap();
  const count = 200_000;
  for (let i = 0; i < count; i++) map.set(`cus_${i % 7}\u0000key-${i}`, `[${i},"fp${i}"]`);
  for (let i = 0; i < count; i += 2) expect(map.delete(`cus_${i % 7}\u0000key-${i}`)).toBe(true);
  // More sets after the deletes: the next arena rebuild drops the dead entries.
  for (let i = count; i < count + 50_000; i++) map.set(`cus_${i % 7}\u0000key-${i}`, `[${i},"fp${i}"]`);

  expect(map.size).toBe(count / 2 + 50_000);
  expect(map.get("cus_1\u0000key-1")).toBe('[1,"fp1"]');
  expect(map.get("cus_0\u0000key-0")).toBeUndefined();
  expect(map.get(`cus_${(count + 49_999) % 7}\u0000key-${count + 49_999}`)).toBe(
    `[${count + 49_999},"fp${count + 49_999}"]`,
  );
  const values = Array.from(map, ([, value]) => value);
  expect(values.slice(0, 2)).toEqual(['[1,"fp1"]', '[3,"fp3"]']);
  expect(values.at(-1)).toBe(`[${count + 49_999},"fp${count + 49_999}"]`);
});

it("starts empty again when cleared", () => {
  const map = new ByteMap();
  for (let i = 0; i < 5_000; i++) map.set(`k${i}`, "v");
  map.clear();
  expect(map.size).toBe(0);
  expect(map.get("k1")).toBeUndefined();
  expect([...map.keys()]).toEqual([]);
  map.set("k1", "again");
  expect([...map]).toEqual([["k1", "again"]]);
});

it.prop([fc.integer({ min: 600, max: 3_000 }), fc.array(step, { maxLength: 300 }), fc.array(fc.nat(2_999))], {
  numRuns: 40,
})("stays a Map while its index grows, with writes, deletes and sweeps arriving mid-way", (count, steps, deletes) => {
  const bytes = new ByteMap();
  const model = new ModelMap();
  for (let i = 0; i < count; i++) {
    bytes.set(`n${i}`, `v${i}`);
    model.set(`n${i}`, `v${i}`);
    // Between writes, every few: another step, a delete of a numbered key, a read of an older one.
    if (i % 5 !== 0) continue;
    const s = steps[(i / 5) % Math.max(steps.length, 1)];
    if (s?.kind === "set") {
      bytes.set(s.key, s.value);
      model.set(s.key, s.value);
    } else if (s?.kind === "delete") {
      expect(bytes.delete(s.key)).toBe(model.map.delete(s.key));
    } else if (s?.kind === "sweep") {
      sweep(bytes, s.count);
      sweep(model.map, s.count);
    }
    const gone = `n${deletes[(i / 5) % Math.max(deletes.length, 1)] ?? 0}`;
    expect(bytes.delete(gone)).toBe(model.map.delete(gone));
    expect(bytes.get(`n${i >> 1}`)).toBe(model.map.get(`n${i >> 1}`));
  }
  expect(bytes.size).toBe(model.map.size);
  expect([...bytes.entries()]).toEqual([...model.map.entries()]);
  for (const [key, value] of model.map) expect(bytes.get(key)).toBe(value);
  for (let i = 0; i < count; i++) expect(bytes.has(`n${i}`)).toBe(model.map.has(`n${i}`));
});
