/**
 * The process plumbing behind Prism, the CLI tests and the bench: each way a
 * wait for a child's output can end, and stopping a child that ignores SIGTERM.
 */
import { afterAll, expect, test } from "vitest";
import { freePort, type RunningProcess, startProcess } from "../../src/harness/child-process.ts";

const children: RunningProcess[] = [];
afterAll(async () => {
  for (const child of children) await child.stop(0);
});

function node(script: string): RunningProcess {
  const child = startProcess(process.execPath, ["-e", script]);
  children.push(child);
  return child;
}

test("waitFor matches a line on stdout or stderr, and exited carries the code once all output is in", async () => {
  const child = node(
    `console.error("booting"); setTimeout(() => { console.log("READY http://x:1"); process.exit(3); }, 50);`,
  );
  const ready = await child.waitFor(/READY (\S+)/, 10_000);
  expect(ready.kind === "matched" && ready.match[1]).toBe("http://x:1");
  expect(await child.exited).toBe(3);
  expect(child.output()).toMatch(/booting[\s\S]*READY/);
});

test("waitFor reports a child that exits without printing the line, and one that stays silent", async () => {
  expect(await node(`process.exit(4)`).waitFor(/never/, 10_000)).toEqual({ kind: "exited", code: 4 });
  expect(await node(`setTimeout(() => {}, 10_000)`).waitFor(/never/, 100)).toEqual({ kind: "timed_out" });
});

test("stop escalates to SIGKILL for a child that ignores SIGTERM", async () => {
  const child = node(`process.on("SIGTERM", () => {}); console.log("up"); setInterval(() => {}, 1_000);`);
  expect((await child.waitFor(/up/, 10_000)).kind).toBe("matched");
  await child.stop(200);
  expect(child.child.signalCode).toBe("SIGKILL");
});

test("freePort gives a port a server can listen on", async () => {
  const port = await freePort();
  expect(port).toBeGreaterThan(0);
  const child = node(
    `require("node:net").createServer().listen(${port}, "127.0.0.1", () => console.log("listening"));`,
  );
  expect((await child.waitFor(/listening/, 10_000)).kind).toBe("matched");
});

test("freePort never gives one port to two callers at once, before either has bound it", async () => {
  // Runs started side by side each ask for a port and bind it later: no two may share one. At random
  // among 12,000 ports, 300 draws repeat one with odds of about 97 %.
  const ports: number[] = [];
  for (let i = 0; i < 300; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
});
