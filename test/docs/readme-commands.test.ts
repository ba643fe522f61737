/**
 * The README is the front door: at most 200 lines, and every command in its
 * `sh` blocks runs as shown, through bash, with `npx airtime-harness` meaning
 * this checkout's command. Only the fixed ports change (4010, 4020 and 3000
 * become free ones), so the run never collides with anything on the machine.
 * Commands that would install packages or run this suite are listed, not run:
 * the package tests install the packed tarball instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { codeBlocks } from "../support/markdown.ts";
import { freePort } from "../support/processes.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const NOT_RUN = ["npm ci", "npm test", "npm install --save-dev airtime-harness"];
/** Commands that serve until stopped: each is started, seen listening, and stopped. */
const LONG_RUNNING = /^(npm start|npx airtime-harness (serve|listen))\b(?!.*--help)/;

/** Every command of the README's `sh` blocks: continuations joined, comments dropped, `&&` split. */
function readmeCommands(): string[] {
  return codeBlocks(README)
    .filter((block) => block.language === "sh")
    .flatMap((block) => block.code.replaceAll("\\\n", " ").split("\n"))
    .map((line) =>
      line
        .replace(/\s+#\s.*$/, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((line) => line !== "")
    .flatMap((line) => line.split(" && "));
}

interface Shell {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * A bash whose `npx airtime-harness` and `airtime-harness` are this
 * checkout's bin: a folder of two small scripts first on the PATH.
 */
function shims(): string {
  const dir = mkdtempSync(join(tmpdir(), "readme-bin-"));
  const bin = JSON.stringify(join(ROOT, "bin/airtime-harness.js"));
  const node = JSON.stringify(process.execPath);
  const npx = `#!/bin/bash\nif [ "$1" = airtime-harness ]; then shift; exec ${node} ${bin} "$@"; fi\necho "npx $* is not run here" >&2; exit 127\n`;
  writeFileSync(join(dir, "npx"), npx);
  writeFileSync(join(dir, "airtime-harness"), `#!/bin/bash\nexec ${node} ${bin} "$@"\n`);
  for (const name of ["npx", "airtime-harness"]) chmodSync(join(dir, name), 0o755);
  return dir;
}

describe("README.md", () => {
  const commands = readmeCommands();
  const ports = new Map<string, string>();
  let path = "";
  let handler: WebhookHandler;
  const shells: Shell[] = [];

  function run(command: string, cwd = ROOT): Shell {
    let text = command;
    for (const [fixed, free] of ports) text = text.replaceAll(fixed, free);
    // Its own process group, so stopping it stops the whole pipeline.
    const child = spawn("bash", ["-c", text], {
      cwd,
      detached: true,
      env: { ...process.env, PATH: `${path}:${process.env.PATH ?? ""}`, AIRTIME_SIM_PORT: ports.get("4010") ?? "" },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const shell = {
      child,
      output: () => output,
      exited: new Promise<number | null>((done) => child.on("close", done)),
    };
    shells.push(shell);
    return shell;
  }

  async function stop(shell: Shell): Promise<void> {
    const { pid, exitCode } = shell.child;
    if (exitCode !== null || pid === undefined) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // The group has already gone.
    }
    await shell.exited;
  }

  async function listening(shell: Shell): Promise<string> {
    for (let waited = 0; waited < 60_000; waited += 50) {
      const url = /listening on (http:\/\/\S+)/.exec(shell.output())?.[1];
      if (url !== undefined) return url;
      if (shell.child.exitCode !== null) break;
      // Polling a child's output: there is no clock to advance here.
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error(`not listening: ${shell.output()}`);
  }

  beforeAll(async () => {
    path = shims();
    handler = await startWebhookHandler("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    ports.set("4010", String(await freePort()));
    ports.set("4020", String(await freePort()));
    ports.set("localhost:3000", new URL(handler.url).host);
  });

  afterAll(async () => {
    for (const shell of shells) await stop(shell);
    await handler?.close();
  });

  test("stays within 200 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(200);
  });

  test("leaves out only the commands that install packages or run this suite", () => {
    expect(commands.filter((c) => NOT_RUN.includes(c)).sort()).toEqual([...NOT_RUN].sort());
  });

  test("the tour's curl commands place, replay, look up an order and read the balance", async () => {
    const serve = run(commands.find((c) => c.startsWith("npx airtime-harness serve --demo-token")) as string);
    await listening(serve);
    const curls = commands.filter((c) => c.startsWith("curl "));
    expect(curls).toHaveLength(3);
    const [place, look, balance] = curls as [string, string, string];
    const answers = [];
    // The README runs the first one twice: the second is the replay.
    for (const command of [place, place, look, balance]) {
      const shell = run(command);
      expect(await shell.exited, shell.output()).toBe(0);
      answers.push(JSON.parse(shell.output()) as Record<string, unknown>);
    }
    const [placed, replayed, found, wallet] = answers;
    expect(placed).toMatchObject({ reference: "order-1001", status: 0, message: "Pending" });
    expect(replayed?.id).toBe(placed?.id);
    expect(found).toMatchObject({ id: placed?.id, reference: "order-1001", account: "+254712345678" });
    expect(wallet).toMatchObject({ status: 20, amount: 99_900, currency: "KES" });
    await stop(serve);
  });

  test.each(commands.filter((c) => LONG_RUNNING.test(c) && !c.includes("--demo-token")))(
    "%s starts and listens",
    async (command) => {
      const shell = run(command);
      expect(await listening(shell)).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      await stop(shell);
    },
  );

  test.each(
    commands.filter((c) => !c.startsWith("curl ") && !LONG_RUNNING.test(c) && !NOT_RUN.includes(c) && c !== "npm ci"),
  )("%s exits 0", { timeout: 180_000 }, async (command) => {
    // A fresh folder each, so `init` writes into one of its own.
    const shell = run(command, mkdtempSync(join(tmpdir(), "readme-cwd-")));
    expect(await shell.exited, shell.output()).toBe(0);
  });
});

test("the README says how long npm test takes, and how to run one area instead", () => {
  const line = README.split("\n").find((text) => text.startsWith("npm test "));
  expect(line).toMatch(/\d+\+? min on \d+ shared cores/);
  expect(line).toContain("npx vitest run test/");
});
