/** Let time pass: advance the target's virtual clock, or wait (capped) against a real one. */
import type fc from "fast-check";
import type { HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";

export class AdvanceTimeCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  constructor(readonly ms: number) {}

  check(): boolean {
    return true;
  }

  async run(model: HarnessModel, r: RunContext): Promise<void> {
    r.transcript.step(this.describe(r.clock.mode));
    model.elapsedMs += await r.clock.advance(this.ms);
  }

  private describe(mode: "virtual" | "real"): string {
    return mode === "virtual" ? `advance the clock by ${this.ms} ms` : `wait ${this.ms} ms (capped)`;
  }

  toString(): string {
    return `advance time by ${this.ms} ms`;
  }
}
