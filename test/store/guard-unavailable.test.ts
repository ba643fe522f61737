/**
 * What a Redis adapter's callers see when Redis cannot be reached: the
 * store's, the delivery log's and the scheduler's failures to reach it all
 * become `StoreUnavailableError` (a 503 `store_unavailable`, never a 500),
 * a RangeError stays a programming error, and methods that answer at once
 * (the scheduler's `handle`, `track`) answer as they are.
 */
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/domain/ports.ts";
import { guardUnavailable } from "../../src/redis/connect-redis.ts";

describe("an adapter guarded against Redis being away", () => {
  const adapter = {
    calls: 0,
    handle(type: string) {
      adapter.calls += 1;
      return `handled ${type}`;
    },
    async schedule(): Promise<string> {
      throw new Error("Connection is closed.");
    },
    async size(): Promise<number> {
      throw new RangeError("a bad argument");
    },
    async cancel(): Promise<boolean> {
      return true;
    },
  };
  const guarded = guardUnavailable(adapter);

  it("turns a failure to reach Redis into StoreUnavailableError, keeping its cause", async () => {
    const error = await guarded.schedule().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe("Connection is closed.");
    expect(((error as Error).cause as Error).message).toBe("Connection is closed.");
  });

  it("lets a RangeError and every answer through as they are", async () => {
    await expect(guarded.size()).rejects.toThrow(RangeError);
    expect(await guarded.cancel()).toBe(true);
    expect(guarded.handle("order.step")).toBe("handled order.step");
    expect(adapter.calls).toBe(1);
  });
});
