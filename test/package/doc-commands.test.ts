/**
 * The README's commands and the guides' `sh runnable` ones in a fresh
 * project that installed the packed tarball, as a user before the first
 * release has it: `npx airtime-harness` there is the installed package's
 * command, with no shim and no checkout on the PATH. `npm start` belongs to
 * a clone (test/docs/readme-commands.test.ts runs it there).
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  createDocShells,
  type DocShells,
  guideCommands,
  LONG_RUNNING,
  NOT_RUN,
  readmeCommands,
} from "../docs/doc-commands.ts";
import { freePort } from "../support/processes.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";
import { type Consumer, createConsumer } from "./consumer.ts";

const CLONE_ONLY = /^npm (start|test|ci)\b/;
const commands = [...readmeCommands(), ...guideCommands().map((entry) => entry.command)].filter(
  (c) => !NOT_RUN.includes(c) && !CLONE_ONLY.test(c),
);

describe("the documented commands, in a project that installed the tarball", () => {
  const ports = new Map<string, string>();
  let consumer: Consumer;
  let shells: DocShells;
  let handler: WebhookHandler;

  beforeAll(async () => {
    consumer = await createConsumer("doc-commands");
    handler = await startWebhookHandler("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    ports.set("4010", String(await freePort()));
    ports.set("4020", String(await freePort()));
    ports.set("localhost:3000", new URL(handler.url).host);
    shells = createDocShells(ports);
  });

  afterAll(async () => {
    await shells?.stopAll();
    await handler?.close();
    await consumer?.remove();
  });

  test("the tour's serve and curl commands run against the installed simulator", async () => {
    const serve = shells.run(
      commands.find((c) => c.startsWith("npx airtime-harness serve --demo-token")) as string,
      consumer.dir,
    );
    await shells.listening(serve);
    const curls = commands.filter((c) => c.startsWith("curl "));
    expect(curls.length).toBeGreaterThan(0);
    const [place, look] = curls as [string, string];
    for (const command of [place, place, look]) {
      const shell = shells.run(command, consumer.dir);
      expect(await shell.exited, shell.output()).toBe(0);
      expect(JSON.parse(shell.output())).toMatchObject({ reference: "order-1001" });
    }
    await shells.stop(serve);
  });

  test.each(commands.filter((c) => LONG_RUNNING.test(c) && !c.includes("--demo-token")))(
    "%s starts and listens",
    async (command) => {
      const shell = shells.run(command, consumer.dir);
      expect(await shells.listening(shell)).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      await shells.stop(shell);
    },
  );

  test.each(commands.filter((c) => !c.startsWith("curl ") && !LONG_RUNNING.test(c)))("%s exits 0", async (command) => {
    // A fresh folder inside the project each, so `init` writes into one of its own and npx finds the install.
    const shell = shells.run(command, mkdtempSync(join(consumer.dir, "cwd-")));
    expect(await shell.exited, shell.output()).toBe(0);
  });
});
