import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { waitUntilIdle } from "../../bench/process-cpu.ts";

/** A process that spends `cpuMs` of its own CPU time once started, then idles until killed. */
function burnThenIdle(cpuMs: number) {
  const script = `
    process.stdout.write("started\\n");
    const until = ${cpuMs} * 1000;
    while (process.cpuUsage().user + process.cpuUsage().system < until) {}
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const started = new Promise<void>((done) => child.stdout.once("data", () => done()));
  return { child, started };
}

it("waits for a server's leftover work to end, and counts it", async () => {
  const { child, started } = burnThenIdle(600);
  try {
    await started;
    const wait = await waitUntilIdle(child.pid, { windowMs: 200, maxMs: 30_000 });
    expect(wait.idle).toBe(true);
    // Most of the 600 ms it burned after starting lands inside the wait (/proc counts in 10 ms ticks).
    expect(wait.cpuS).toBeGreaterThanOrEqual(0.3);
    // Once idle, it stays so: a second wait ends after one window with nothing counted.
    const again = await waitUntilIdle(child.pid, { windowMs: 200 });
    expect(again).toMatchObject({ idle: true });
    expect(again.cpuS).toBeLessThan(0.05);
  } finally {
    child.kill("SIGKILL");
  }
}, 40_000);
