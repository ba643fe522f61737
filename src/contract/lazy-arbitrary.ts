/**
 * An arbitrary built on first use. Some of fast-check's string arbitraries
 * cost about a second of CPU to build (`unit: "binary"` builds its whole
 * reverse map of code points), which every process that merely loads the
 * generators would pay at import. Wrapped here, only a run that draws from
 * it pays, once; the values, their order and their shrinking are the built
 * arbitrary's own.
 */
import fc from "fast-check";

class LazyArbitrary<T> extends fc.Arbitrary<T> {
  private built: fc.Arbitrary<T> | undefined;

  constructor(private readonly build: () => fc.Arbitrary<T>) {
    super();
  }

  private arbitrary(): fc.Arbitrary<T> {
    this.built ??= this.build();
    return this.built;
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    return this.arbitrary().generate(mrng, biasFactor);
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.arbitrary().canShrinkWithoutContext(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arbitrary().shrink(value, context);
  }
}

/**
 * `build()`'s arbitrary, built the first time a value is drawn or shrunk.
 *
 * @example
 * const anyText = lazyArbitrary(() => fc.string({ unit: "binary" })); // nothing built yet
 * fc.sample(anyText, 1); // built now, then drawn from
 */
export function lazyArbitrary<T>(build: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  return new LazyArbitrary(build);
}
