import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Job } from "../../src/domain/ports.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";

function virtual() {
  const errors: unknown[] = [];
  const time = createTimeKeeper({ mode: "virtual", startAt: 0, onError: (error) => errors.push(error) });
  const ran: { id: string; at: number; payload: unknown }[] = [];
  time.scheduler.handle("t", async (job: Job) => {
    ran.push({ id: job.id, at: time.clock.now(), payload: job.payload });
  });
  return { time, ran, errors };
}

describe("virtual time keeper", () => {
  it("does nothing until advanced", async () => {
    const { time, ran } = virtual();
    await time.scheduler.schedule({ type: "t", dueAt: 10, payload: null });
    expect(ran).toEqual([]);
    expect(time.clock.now()).toBe(0);
    await time.advance(9);
    expect(ran).toEqual([]);
    await time.advance(1);
    expect(ran).toHaveLength(1);
  });

  it("runs due jobs in due order, ties in scheduling order, each at its own time", async () => {
    const { time, ran } = virtual();
    for (const [id, dueAt] of [
      ["c", 30],
      ["a", 10],
      ["b2", 20],
      ["b1", 20],
      ["late", 100],
    ] as const) {
      await time.scheduler.schedule({ id, type: "t", dueAt, payload: id });
    }
    await time.advance(50);
    expect(ran.map((r) => [r.id, r.at])).toEqual([
      ["a", 10],
      ["b2", 20],
      ["b1", 20],
      ["c", 30],
    ]);
    expect(time.clock.now()).toBe(50);
    expect(await time.scheduler.size()).toBe(1);
  });

  it("runs jobs scheduled by a handler inside the window in the same advance", async () => {
    const { time, ran } = virtual();
    time.scheduler.handle("chain", async (job) => {
      const n = job.payload as number;
      ran.push({ id: `chain${n}`, at: time.clock.now(), payload: n });
      if (n < 5) await time.scheduler.schedule({ type: "chain", dueAt: job.dueAt + 10, payload: n + 1 });
    });
    await time.scheduler.schedule({ type: "chain", dueAt: 10, payload: 1 });
    await time.advance(35);
    expect(ran.map((r) => r.at)).toEqual([10, 20, 30]);
    await time.advance(100);
    expect(ran.map((r) => r.at)).toEqual([10, 20, 30, 40, 50]);
  });

  it("runs jobs that work left running schedules inside the window, at their times, in the same advance", async () => {
    const { time, ran } = virtual();
    // Each step starts slow work (a real timer) that schedules the next step 10 ms later, as a retry does.
    time.scheduler.handle("step", async (job) => {
      const n = job.payload as number;
      ran.push({ id: `step${n}`, at: time.clock.now(), payload: n });
      if (n === 4) return;
      const work = new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
        time.scheduler.schedule({ type: "step", dueAt: job.dueAt + 10, payload: n + 1 }),
      );
      time.scheduler.track(work, job.dueAt + 10);
    });
    await time.scheduler.schedule({ type: "step", dueAt: 10, payload: 1 });
    await time.advance(35);
    expect(ran.map((r) => [r.id, r.at])).toEqual([
      ["step1", 10],
      ["step2", 20],
      ["step3", 30],
    ]);
    expect(time.clock.now()).toBe(35);
    await time.advance(100);
    expect(ran.map((r) => r.at)).toEqual([10, 20, 30, 40]);
  });

  it("runs unrelated jobs due before a tracked work's horizon while that work is still out", async () => {
    const { time, ran } = virtual();
    let finish: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      finish = resolve;
    });
    time.scheduler.handle("slow", async (job) => {
      ran.push({ id: job.id, at: time.clock.now(), payload: null });
      time.scheduler.track(
        hanging.then(() => time.scheduler.schedule({ id: "retry", type: "t", dueAt: 60, payload: null })),
        50,
      );
    });
    await time.scheduler.schedule({ id: "slow", type: "slow", dueAt: 10, payload: null });
    await time.scheduler.schedule({ id: "other", type: "t", dueAt: 40, payload: null });
    const advancing = time.advance(100);
    await vi.waitFor(() => expect(ran.map((r) => r.id)).toEqual(["slow", "other"]));
    // The clock stops short of the horizon: the work may still schedule something due from 50 on.
    expect(time.clock.now()).toBe(40);
    finish();
    await advancing;
    expect(ran.map((r) => [r.id, r.at])).toEqual([
      ["slow", 10],
      ["other", 40],
      ["retry", 60],
    ]);
  });

  it("a real clock ignores tracked work", async () => {
    const time = createTimeKeeper({ mode: "real" });
    time.scheduler.track(new Promise(() => undefined), 0);
    expect(time.clock.virtual).toBeUndefined();
    expect(createTimeKeeper({ mode: "virtual" }).clock.virtual).toBe(true);
    time.stop();
  });

  it("cancels a job, once", async () => {
    const { time, ran } = virtual();
    const keep = await time.scheduler.schedule({ type: "t", dueAt: 5, payload: "keep" });
    const drop = await time.scheduler.schedule({ type: "t", dueAt: 5, payload: "drop" });
    expect(await time.scheduler.cancel(drop)).toBe(true);
    expect(await time.scheduler.cancel(drop)).toBe(false);
    expect(await time.scheduler.size()).toBe(1);
    await time.advance(5);
    expect(ran.map((r) => r.payload)).toEqual(["keep"]);
    expect(await time.scheduler.cancel(keep)).toBe(false);
    expect(await time.scheduler.cancel("never-scheduled")).toBe(false);
  });

  it("replaces a live job scheduled again under the same id", async () => {
    const { time, ran } = virtual();
    await time.scheduler.schedule({ id: "x", type: "t", dueAt: 5, payload: "first" });
    await time.scheduler.schedule({ id: "x", type: "t", dueAt: 7, payload: "second" });
    expect(await time.scheduler.size()).toBe(1);
    await time.advance(10);
    expect(ran.map((r) => [r.payload, r.at])).toEqual([["second", 7]]);
  });

  it("replaces a caller's job whose id a generated id meets, as with any id scheduled again", async () => {
    const { time, ran } = virtual();
    await time.scheduler.schedule({ id: "job_2", type: "t", dueAt: 5, payload: "chosen" });
    expect(await time.scheduler.schedule({ type: "t", dueAt: 6, payload: "first generated" })).toBe("job_1");
    expect(await time.scheduler.schedule({ type: "t", dueAt: 7, payload: "second generated" })).toBe("job_2");
    expect(await time.scheduler.size()).toBe(2);
    await time.advance(10);
    expect(ran.map((r) => r.payload)).toEqual(["first generated", "second generated"]);
  });

  it("serialises concurrent advances: each starts where the previous stopped", async () => {
    const { time, ran } = virtual();
    time.scheduler.handle("slow", async (job) => {
      // A handler that yields several times, as store calls do.
      for (let i = 0; i < 5; i++) await Promise.resolve();
      ran.push({ id: job.id, at: time.clock.now(), payload: null });
    });
    for (let i = 1; i <= 6; i++)
      await time.scheduler.schedule({ id: `j${i}`, type: "slow", dueAt: i * 10, payload: null });
    await Promise.all([time.advance(20), time.advance(20), time.advance(20)]);
    expect(ran.map((r) => [r.id, r.at])).toEqual([
      ["j1", 10],
      ["j2", 20],
      ["j3", 30],
      ["j4", 40],
      ["j5", 50],
      ["j6", 60],
    ]);
    expect(time.clock.now()).toBe(60);
  });

  it("reports a throwing handler and keeps going", async () => {
    const { time, ran, errors } = virtual();
    time.scheduler.handle("boom", async () => {
      throw new Error("boom");
    });
    await time.scheduler.schedule({ type: "boom", dueAt: 1, payload: null });
    await time.scheduler.schedule({ type: "nobody-handles", dueAt: 2, payload: null });
    await time.scheduler.schedule({ type: "t", dueAt: 3, payload: "after" });
    await time.advance(3);
    expect(errors).toHaveLength(2);
    expect(ran.map((r) => r.payload)).toEqual(["after"]);
  });

  it("refuses a negative advance and advance() in real mode", async () => {
    const { time } = virtual();
    await expect(time.advance(-1)).rejects.toThrow(RangeError);
    const real = createTimeKeeper({ mode: "real" });
    await expect(real.advance(1)).rejects.toThrow(/virtual/);
    real.stop();
  });

  it("runs 50,000 jobs scheduled in scrambled order in due order, minus the cancelled ones", async () => {
    const { time, ran } = virtual();
    const ids: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      ids.push(await time.scheduler.schedule({ type: "t", dueAt: (i * 7919) % 50_000, payload: i }));
    }
    for (let i = 0; i < 50_000; i += 10) await time.scheduler.cancel(ids[i]!);
    expect(await time.scheduler.size()).toBe(45_000);
    await time.advance(50_000);
    expect(ran).toHaveLength(45_000);
    expect(ran.every((r, i) => i === 0 || ran[i - 1]!.at <= r.at)).toBe(true);
    expect(ran.some((r) => (r.payload as number) % 10 === 0)).toBe(false);
  });

  it("advanceTo moves to a time, running what falls due on the way, and never moves back", async () => {
    const { time, ran } = virtual();
    await time.scheduler.schedule({ id: "a", type: "t", dueAt: 40, payload: null });
    await time.advanceTo(50);
    expect(ran.map((r) => [r.id, r.at])).toEqual([["a", 40]]);
    await time.advanceTo(20);
    expect(time.clock.now()).toBe(50);
    await expect(time.advanceTo(Number.NaN)).rejects.toThrow(RangeError);
  });

  it("runs jobs in (due time, scheduling order) whatever mix of in-order and earlier jobs, cancels and advances", async () => {
    // Jobs a fixed delay ahead arrive in run order and take a quicker path than earlier ones: the order must not tell.
    const step = fc.oneof(
      fc.record({ kind: fc.constant("later" as const), delay: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant("any" as const), delay: fc.integer({ min: 0, max: 300 }) }),
      fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("again" as const), pick: fc.nat(), delay: fc.integer({ min: 0, max: 300 }) }),
      fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 120 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
        const { time, ran } = virtual();
        /** The model: live jobs by id, each with its due time and scheduling sequence. */
        const live = new Map<string, { dueAt: number; seq: number }>();
        const expected: string[] = [];
        let seq = 0;
        let lastDue = 0;
        const runDue = (until: number) => {
          const due = [...live].filter(([, job]) => job.dueAt <= until);
          due.sort(([, a], [, b]) => a.dueAt - b.dueAt || a.seq - b.seq);
          for (const [id] of due) {
            expected.push(id);
            live.delete(id);
          }
        };
        for (const s of steps) {
          const now = time.clock.now();
          const ids = [...live.keys()];
          if (s.kind === "later" || s.kind === "any") {
            const dueAt = s.kind === "later" ? Math.max(lastDue, now) + s.delay : now + s.delay;
            lastDue = Math.max(lastDue, dueAt);
            const id = await time.scheduler.schedule({ type: "t", dueAt, payload: null });
            live.set(id, { dueAt, seq: seq++ });
          } else if (s.kind === "cancel" && ids.length > 0) {
            const id = ids[s.pick % ids.length] as string;
            await time.scheduler.cancel(id);
            live.delete(id);
          } else if (s.kind === "again" && ids.length > 0) {
            const id = ids[s.pick % ids.length] as string;
            await time.scheduler.schedule({ type: "t", dueAt: now + s.delay, payload: null, id });
            live.delete(id);
            live.set(id, { dueAt: now + s.delay, seq: seq++ });
          } else if (s.kind === "advance") {
            await time.advance(s.ms);
            runDue(now + s.ms);
          }
        }
        const end = time.clock.now() + 1_000;
        await time.advance(1_000);
        runDue(end);
        expect(ran.map((r) => r.id)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("tells when the earliest job of a type is due, whatever the order jobs came in", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("schedule" as const), type: fc.constantFrom("t", "u"), delay: fc.nat(300) }),
      fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }),
      fc.record({
        kind: fc.constant("again" as const),
        pick: fc.nat(),
        type: fc.constantFrom("t", "u"),
        delay: fc.nat(300),
      }),
      fc.record({ kind: fc.constant("advance" as const), ms: fc.nat(120) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { time } = virtual();
        time.scheduler.handle("u", async () => undefined);
        /** The model: live jobs by id, with their type and due time. */
        const live = new Map<string, { type: string; dueAt: number }>();
        const earliest = (type?: string): number | undefined => {
          const times = [...live.values()].filter((job) => type === undefined || job.type === type).map((j) => j.dueAt);
          return times.length === 0 ? undefined : Math.min(...times);
        };
        for (const s of steps) {
          const now = time.clock.now();
          const ids = [...live.keys()];
          const picked = "pick" in s ? ids[s.pick % Math.max(1, ids.length)] : undefined;
          if (s.kind === "schedule" || (s.kind === "again" && picked !== undefined)) {
            const id = await time.scheduler.schedule({
              type: s.type,
              dueAt: now + s.delay,
              payload: null,
              ...(picked === undefined ? {} : { id: picked }),
            });
            live.set(id, { type: s.type, dueAt: now + s.delay });
          } else if (s.kind === "cancel" && picked !== undefined) {
            await time.scheduler.cancel(picked);
            live.delete(picked);
          } else if (s.kind === "advance") {
            await time.advance(s.ms);
            for (const [id, job] of live) if (job.dueAt <= now + s.ms) live.delete(id);
          }
          expect(await time.scheduler.nextDueAt("t")).toBe(earliest("t"));
          expect(await time.scheduler.nextDueAt("u")).toBe(earliest("u"));
          expect(await time.scheduler.nextDueAt()).toBe(earliest());
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("real time keeper", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires each job when its due time arrives, not before", async () => {
    vi.useFakeTimers({ now: 1_000 });
    const time = createTimeKeeper({ mode: "real" });
    const fired: [string, number][] = [];
    time.scheduler.handle("t", async (job) => {
      fired.push([job.payload as string, Date.now()]);
    });
    await time.scheduler.schedule({ type: "t", dueAt: 1_500, payload: "later" });
    await time.scheduler.schedule({ type: "t", dueAt: 1_200, payload: "sooner" });
    await vi.advanceTimersByTimeAsync(199);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([["sooner", 1_200]]);
    await vi.advanceTimersByTimeAsync(300);
    expect(fired).toEqual([
      ["sooner", 1_200],
      ["later", 1_500],
    ]);
    time.stop();
  });

  it("runs a job due in the past at once, and nothing after stop", async () => {
    vi.useFakeTimers({ now: 5_000 });
    const time = createTimeKeeper({ mode: "real" });
    const fired: string[] = [];
    time.scheduler.handle("t", async (job) => {
      fired.push(job.payload as string);
    });
    await time.scheduler.schedule({ type: "t", dueAt: 1, payload: "overdue" });
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toEqual(["overdue"]);
    await time.scheduler.schedule({ type: "t", dueAt: 6_000, payload: "never" });
    time.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toEqual(["overdue"]);
  });

  it("re-arms for a sooner job and skips a cancelled one", async () => {
    vi.useFakeTimers({ now: 0 });
    const time = createTimeKeeper({ mode: "real" });
    const fired: string[] = [];
    time.scheduler.handle("t", async (job) => {
      fired.push(job.payload as string);
    });
    const far = await time.scheduler.schedule({ type: "t", dueAt: 1_000, payload: "far" });
    await time.scheduler.schedule({ type: "t", dueAt: 100, payload: "near" });
    await time.scheduler.cancel(far);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fired).toEqual(["near"]);
    time.stop();
  });
});
