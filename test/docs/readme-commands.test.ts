/**
 * The README is the front door: at most 200 lines, and every command in its
 * `sh` blocks runs as shown, through bash, from a clone of this repository,
 * where `npx airtime-harness` is `node bin/airtime-harness.js` (the rule the
 * README states); so does every command of the guides' `sh runnable`
 * blocks. Only the fixed ports change (4010, 4020 and 3000 become free
 * ones). Commands that would install packages or run this suite are listed,
 * not run: test/package/doc-commands.test.ts runs the same commands in a
 * project that installed the packed tarball. A planted bad command shows the
 * run can fail.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../support/processes.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";
import {
  createDocShells,
  type DocShells,
  guideCommands,
  LONG_RUNNING,
  NOT_RUN,
  README,
  readmeCommands,
  runnableCommands,
} from "./doc-commands.ts";

const ROOT = resolve(import.meta.dirname, "../..");

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

const commands = readmeCommands();
const guides = guideCommands();
// A command shown in two places (the README and a guide) runs once: the same line from the same clone.
const toRun = [...new Set([...commands, ...guides.map((entry) => entry.command)])].filter((c) => !NOT_RUN.includes(c));

describe("README.md and the guides' runnable blocks, from a clone", () => {
  const ports = new Map<string, string>();
  let shells: DocShells;
  let handler: WebhookHandler;

  beforeAll(async () => {
    handler = await startWebhookHandler("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    ports.set("4010", String(await freePort()));
    ports.set("4020", String(await freePort()));
    ports.set("localhost:3000", new URL(handler.url).host);
    shells = createDocShells(ports, shims());
  });

  afterAll(async () => {
    await shells?.stopAll();
    await handler?.close();
  });

  test("the README stays within 200 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(200);
  });

  test("leaves out only the commands that install packages or run this suite", () => {
    expect(commands.filter((c) => NOT_RUN.includes(c)).sort()).toEqual([...NOT_RUN].sort());
  });

  test("the guides mark commands to run", () => {
    expect(guides.length).toBeGreaterThan(0);
  });

  test("the tour's curl commands place, replay, look up an order and read the balance", async () => {
    const serve = shells.run(
      commands.find((c) => c.startsWith("npx airtime-harness serve --demo-token")) as string,
      ROOT,
    );
    await shells.listening(serve);
    const curls = commands.filter((c) => c.startsWith("curl "));
    expect(curls).toHaveLength(3);
    const [place, look, balance] = curls as [string, string, string];
    const answers = [];
    // The README runs the first one twice: the second is the replay.
    for (const command of [place, place, look, balance]) {
      const shell = shells.run(command, ROOT);
      expect(await shell.exited, shell.output()).toBe(0);
      answers.push(JSON.parse(shell.output()) as Record<string, unknown>);
    }
    const [placed, replayed, found, wallet] = answers;
    expect(placed).toMatchObject({ reference: "order-1001", status: 0, message: "Pending" });
    expect(replayed?.id).toBe(placed?.id);
    expect(found).toMatchObject({ id: placed?.id, reference: "order-1001", account: "+254712345678" });
    expect(wallet).toMatchObject({ status: 20, amount: 99_900, currency: "KES" });
    await shells.stop(serve);
  });

  test.each(toRun.filter((c) => LONG_RUNNING.test(c) && !c.includes("--demo-token")))(
    "%s starts and listens",
    async (command) => {
      const shell = shells.run(command, ROOT);
      expect(await shells.listening(shell)).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      await shells.stop(shell);
    },
  );

  test.each(toRun.filter((c) => !c.startsWith("curl ") && !LONG_RUNNING.test(c)))(
    "%s exits 0",
    { timeout: 180_000 },
    async (command) => {
      // A fresh folder each, so `init` writes into one of its own.
      const shell = shells.run(command, mkdtempSync(join(tmpdir(), "readme-cwd-")));
      expect(await shell.exited, shell.output()).toBe(0);
    },
  );

  test("a planted bad command in a runnable block fails the run", async () => {
    const planted = "Start it:\n\n```sh runnable\nnpx airtime-harness no-such-command\n```\n";
    const [command] = runnableCommands(planted);
    expect(command).toBe("npx airtime-harness no-such-command");
    const shell = shells.run(command as string, mkdtempSync(join(tmpdir(), "readme-cwd-")));
    expect(await shell.exited).not.toBe(0);
  });
});

test("the README says how long npm test takes, and how to run one area instead", () => {
  const line = README.split("\n").find((text) => text.startsWith("npm test "));
  expect(line).toMatch(/\d+\+? min on \d+ shared cores/);
  expect(line).toContain("npx vitest run test/");
});
