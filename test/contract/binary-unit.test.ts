/**
 * The binary unit the reference generator draws from is fast-check's own
 * "binary" unit, built without its map of every code point: the same
 * strings for the same seed, the same shrinks, the same answer to which
 * strings it could have drawn.
 */
import fc from "fast-check";
import { expect, test } from "vitest";
import { BINARY_UNIT } from "../../src/contract/arbitraries.ts";

const ours = () => fc.string({ unit: BINARY_UNIT, minLength: 1, maxLength: 100 });
const fastChecks = () => fc.string({ unit: "binary", minLength: 1, maxLength: 100 });

test("draws the strings fast-check's binary unit draws, seed for seed", () => {
  for (let seed = 0; seed < 100; seed++) {
    expect(fc.sample(ours(), { seed, numRuns: 50 })).toEqual(fc.sample(fastChecks(), { seed, numRuns: 50 }));
  }
});

test("shrinks a failure to the counterexample fast-check's binary unit shrinks it to, along the same path", () => {
  const failure = (arbitrary: fc.Arbitrary<string>, seed: number) => {
    const { counterexample, counterexamplePath, numShrinks } = fc.check(
      fc.property(arbitrary, (text) => text.length < 3 || !/[a-zé]/u.test(text)),
      { seed, numRuns: 500 },
    );
    return { counterexample, counterexamplePath, numShrinks };
  };
  for (let seed = 0; seed < 20; seed++) {
    const shrunk = failure(ours(), seed);
    expect(shrunk.counterexample).not.toBeNull();
    expect(shrunk).toEqual(failure(fastChecks(), seed));
  }
});

test("could have drawn exactly the single code points fast-check's binary unit could, surrogates excepted", () => {
  const theirs = fc.string({ unit: "binary", minLength: 1, maxLength: 1 });
  const probes = ["a", "é", "😀", "\u0000", "\ud7ff", "\ue000", "\u{10ffff}", "\ud800", "\udfff", "", "ab", "e\u0301"];
  for (const probe of [...probes, 7, null, undefined]) {
    expect(BINARY_UNIT.canShrinkWithoutContext(probe), JSON.stringify(probe)).toBe(
      theirs.canShrinkWithoutContext(probe),
    );
  }
  expect(probes.filter((probe) => BINARY_UNIT.canShrinkWithoutContext(probe))).toEqual([
    "a",
    "é",
    "😀",
    "\u0000",
    "\ud7ff",
    "\ue000",
    "\u{10ffff}",
  ]);
});
