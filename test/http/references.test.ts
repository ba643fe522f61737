import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, expect } from "vitest";
import { BINARY_UNIT } from "../../src/contract/arbitraries.ts";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "../../src/contract/public-schemas.ts";
import type { Simulator } from "../../src/index.ts";
import { bearer, DEMO_TOKEN, placeOrder, send, startSimulator } from "../support/http.ts";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ demo: { token: DEMO_TOKEN, balance: 1_000_000 } });
});
afterAll(() => sim.close());

/** Any reference the schema accepts: 1–100 code points, no control characters, any script. */
const referenceArb = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom("/", "%", "?", "#", " ", "+", ".", "..", "&", "="),
      fc.string({ unit: BINARY_UNIT, minLength: 1, maxLength: 1 }),
      fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
    ),
    minLength: 1,
    maxLength: 40,
  })
  .filter(
    (s) => s.length <= REFERENCE_MAX_LENGTH && REFERENCE_PATTERN.test(s) && s.trim() !== "" && s !== "." && s !== "..",
  );

let n = 0;
test.prop([referenceArb], { numRuns: 60 })(
  "every accepted reference round-trips through GET with percent-encoding",
  async (suffix) => {
    n++;
    // Unique per run (fast-check shrinking replays values), still within the schema.
    const reference = `${n}${suffix}`.slice(0, REFERENCE_MAX_LENGTH);
    fc.pre(REFERENCE_PATTERN.test(reference));
    const placed = await placeOrder(sim, { account: "0712345678", amount: 10, currency: "KES", reference });
    expect(placed.status).toBe(200);
    expect(placed.body.reference).toBe(reference);
    const reply = await send(sim, `/v1/airtime/${encodeURIComponent(reference)}`, { headers: bearer(DEMO_TOKEN) });
    expect(reply.status).toBe(200);
    expect(reply.body.reference).toBe(reference);
    expect(reply.body.id).toBe(placed.body.id);
  },
);

test("the round-trip property catches a server that mangles references (the property can fail)", async () => {
  // Without percent-encoding, a reference with "/" or "%" cannot round-trip: the same property must report it.
  const result = await fc.check(
    fc.asyncProperty(referenceArb, async (suffix) => {
      n++;
      const reference = `${n}${suffix}`.slice(0, REFERENCE_MAX_LENGTH);
      await placeOrder(sim, { account: "0712345678", amount: 10, currency: "KES", reference });
      const reply = await send(sim, `/v1/airtime/${reference}`, { headers: bearer(DEMO_TOKEN) }).catch(() => undefined);
      return reply?.status === 200 && reply.body.reference === reference;
    }),
    { numRuns: 100, seed: 42 },
  );
  expect(result.failed).toBe(true);
  expect(result.counterexample).not.toBeNull();
});
