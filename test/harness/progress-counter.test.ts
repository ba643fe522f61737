import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../../src/harness/contract-options.ts";
import { runContract } from "../../src/harness/run-contract.ts";

describe("the progress counter", () => {
  it("never exceeds its total, fixed cases included, even after a property's checks fail", async () => {
    const events: ProgressEvent[] = [];
    // negative-input has fixed cases before its random runs, and the faulty simulator makes it search again.
    const report = await runContract({
      runs: 20,
      seed: 7,
      properties: ["negative-input", "key-length"],
      onProgress: (event) => events.push(event),
    });
    expect(report.errors).toEqual([]);
    expect(events.length).toBeGreaterThan(20);
    const over = events.filter((event) => event.run > event.runs);
    expect(over).toEqual([]);
    expect(events.every((event) => event.runs >= 20)).toBe(true);
  });
});
