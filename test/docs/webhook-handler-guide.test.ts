/**
 * The guide "Develop your webhook handler" (docs/webhook-handler.md): its
 * Express handler, taken from the page as written, runs as its own process,
 * and `airtime-harness trigger` aimed at it gets the behaviour the guide
 * promises: verified, applied once per webhook-id, bad signatures refused.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningProcess, startProcess } from "../../src/harness/child-process.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { freePort, runCli } from "../support/processes.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const GUIDE = resolve(ROOT, "docs/webhook-handler.md");
const secret = generateWebhookSecret();
let directory: string;
let server: RunningProcess;
let handlerUrl: string;

/** The guide's ```js blocks that open with a `// file-name.js` line, by file name. */
async function guideFiles(): Promise<Map<string, string>> {
  const text = await readFile(GUIDE, "utf8");
  const files = new Map<string, string>();
  for (const match of text.matchAll(/```js\n\/\/ ([\w.-]+\.js)\n([\s\S]*?)```/g)) {
    files.set(match[1] as string, match[2] as string);
  }
  return files;
}

beforeAll(async () => {
  const files = await guideFiles();
  // Under node_modules, so the sample's `import "express"` resolves to this package's dependencies.
  directory = await mkdtemp(join(ROOT, "node_modules/.cache-guide-"));
  await writeFile(join(directory, "package.json"), JSON.stringify({ type: "module" }));
  for (const name of ["airtime-events.js", "express-server.js"]) {
    const code = files.get(name);
    if (code === undefined) throw new Error(`the guide has no ${name} block`);
    await writeFile(join(directory, name), code);
  }
  const port = await freePort();
  server = startProcess(process.execPath, [join(directory, "express-server.js")], {
    env: { ...process.env, PORT: String(port), AIRTIME_WEBHOOK_SECRET: secret },
  });
  const ready = await server.waitFor(/listening on (http:\/\/\S+)/, 30_000);
  if (ready.kind !== "matched") throw new Error(`the guide's express server did not start: ${server.output()}`);
  handlerUrl = ready.match[1] as string;
});

afterAll(async () => {
  await server?.stop();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

async function trigger(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const child = runCli(["trigger", ...args, "--forward-to", handlerUrl, "--secret", secret]);
  const code = await child.exited;
  return { code, output: child.output() };
}

it("the guide's express handler verifies a triggered Failed webhook and applies it", async () => {
  const { code, output } = await trigger(["failed", "--reference", "GUIDE-FAILED"]);
  expect(code, output).toBe(0);
  expect(server.output()).toContain("GUIDE-FAILED: 2 Failed → failed");
});

it("applies a message sent three times once, and answers 2xx to each", async () => {
  const { code, output } = await trigger(["success", "--duplicate", "3", "--reference", "GUIDE-DUP"]);
  expect(code, output).toBe(0);
  expect(output.match(/attempt 1: HTTP 204/g)).toHaveLength(3);
  expect(server.output().match(/GUIDE-DUP: 20 Success → delivered/g)).toHaveLength(1);
});

it("refuses a bad signature with 400, so trigger exits 1", async () => {
  const { code, output } = await trigger(["timeout", "--bad-signature", "--reference", "GUIDE-BAD"]);
  expect(code, output).toBe(1);
  expect(output).toMatch(/attempts 1–10: HTTP 400, 10 times \(failed\)/);
  expect(server.output()).not.toContain("GUIDE-BAD");
});
