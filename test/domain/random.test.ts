import { describe, expect, it } from "vitest";
import { createIds, createSeededRandom, createSequentialIds, ID_ALPHABET } from "../../src/domain/ids.ts";

function draw(seed: number, count: number): number[] {
  const random = createSeededRandom(seed);
  return Array.from({ length: count }, () => random.next());
}

describe("seeded random", () => {
  it("gives the same sequence for the same seed", () => {
    expect(draw(42, 1000)).toEqual(draw(42, 1000));
  });

  it("keeps the sequence a seed gave in earlier versions, so saved runs replay the same", () => {
    const one = draw(1, 1000);
    expect(one.slice(0, 3)).toEqual([0.4256499295588583, 0.79042171058245, 0.6910148127935827]);
    expect(one[999]).toBe(0.6348170079290867);
    const high = draw(2 ** 31 + 5, 1000);
    expect(high.slice(0, 3)).toEqual([0.41017165943048894, 0.18443717900663614, 0.8830114929005504]);
    expect(high[999]).toBe(0.45629911753349006);
    expect(createIds(createSeededRandom(7)).next("ord")).toBe("ord_6bttchx1m2sa88x096dd");
  });

  it("gives different sequences for neighbouring seeds", () => {
    const a = draw(1, 50);
    const b = draw(2, 50);
    expect(a.filter((value, index) => value === b[index])).toHaveLength(0);
  });

  it("stays within [0, 1) and spreads evenly over ten buckets", () => {
    const values = draw(7, 20_000);
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    const buckets = new Array<number>(10).fill(0);
    for (const value of values) buckets[Math.floor(value * 10)]! += 1;
    // 2,000 expected per bucket; ±10 % is far outside chance for a sound generator.
    for (const count of buckets) expect(Math.abs(count - 2000)).toBeLessThan(200);
  });

  it("rejects a seed that is not a number", () => {
    expect(() => createSeededRandom(Number.NaN)).toThrow(RangeError);
  });
});

describe("ids", () => {
  it("are a prefix and 20 base32 characters, reproducible from the seed", () => {
    const first = createIds(createSeededRandom(9));
    const again = createIds(createSeededRandom(9));
    const id = first.next("ord");
    expect(id).toMatch(new RegExp(`^ord_[${ID_ALPHABET}]{20}$`));
    expect(again.next("ord")).toBe(id);
  });

  it("do not repeat over many draws", () => {
    const ids = createIds(createSeededRandom(3));
    const seen = new Set(Array.from({ length: 10_000 }, () => ids.next("ord")));
    expect(seen.size).toBe(10_000);
  });

  it("count per prefix when sequential", () => {
    const ids = createSequentialIds();
    expect([ids.next("ord"), ids.next("ord"), ids.next("cus"), ids.next("ord")]).toEqual([
      "ord_1",
      "ord_2",
      "cus_1",
      "ord_3",
    ]);
  });
});
