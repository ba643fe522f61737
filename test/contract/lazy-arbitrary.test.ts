/**
 * An arbitrary built on first use draws exactly what the built one draws,
 * shrinks the same way, and costs nothing until a value is drawn.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lazyArbitrary } from "../../src/contract/lazy-arbitrary.ts";

const binaryText = () => fc.string({ unit: "binary", minLength: 1, maxLength: 40 });

describe("lazyArbitrary", () => {
  test("is not built until a value is drawn, then built once", () => {
    let builds = 0;
    const lazy = lazyArbitrary(() => {
      builds += 1;
      return binaryText();
    });
    expect(builds).toBe(0);
    fc.sample(lazy, 5);
    fc.sample(lazy, 5);
    expect(builds).toBe(1);
  });

  test("draws the built arbitrary's values for the same seed", () => {
    const lazy = lazyArbitrary(binaryText);
    expect(fc.sample(lazy, { seed: 42, numRuns: 50 })).toEqual(fc.sample(binaryText(), { seed: 42, numRuns: 50 }));
  });

  test("shrinks a failing value as the built arbitrary does", () => {
    const failure = (arbitrary: fc.Arbitrary<string>) =>
      fc.check(
        fc.property(arbitrary, (text) => !text.includes("a")),
        { seed: 3, numRuns: 2000 },
      ).counterexample;
    const shrunk = failure(lazyArbitrary(() => fc.string({ unit: "binary-ascii", minLength: 1 })));
    expect(shrunk).toEqual(failure(fc.string({ unit: "binary-ascii", minLength: 1 })));
    expect(shrunk?.[0]).toContain("a");
  });
});
