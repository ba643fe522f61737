/**
 * The guide "Develop your webhook handler" (docs/webhook-handler.md): its
 * Express handler, taken from the page as written, runs as its own process,
 * and `airtime-harness trigger` aimed at it gets the behaviour the guide
 * promises: verified, applied once per webhook-id, bad signatures refused.
 * `airtime-harness handler-check` passes it, and catches each of the three
 * bugs the guide shows, made to the same code, by the rule the guide names.
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
const directories: string[] = [];
const servers: RunningProcess[] = [];
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

/** `edit` turns the guide's code into a variant; it must find what it replaces. */
type Edit = { readonly file: string; readonly from: string; readonly to: string };

/** The guide's express server, with `edits` made to its code, on a free port; resolves to its webhook URL. */
async function startGuideServer(edits: readonly Edit[] = []): Promise<string> {
  const files = await guideFiles();
  // Under node_modules, so the sample's `import "express"` resolves to this package's dependencies.
  const directory = await mkdtemp(join(ROOT, "node_modules/.cache-guide-"));
  directories.push(directory);
  await writeFile(join(directory, "package.json"), JSON.stringify({ type: "module" }));
  for (const name of ["airtime-events.js", "express-server.js"]) {
    let code = files.get(name);
    if (code === undefined) throw new Error(`the guide has no ${name} block`);
    for (const edit of edits.filter((e) => e.file === name)) {
      if (!code.includes(edit.from)) throw new Error(`the guide's ${name} no longer has: ${edit.from}`);
      code = code.replace(edit.from, edit.to);
    }
    await writeFile(join(directory, name), code);
  }
  const port = await freePort();
  const server = startProcess(process.execPath, [join(directory, "express-server.js")], {
    env: { ...process.env, PORT: String(port), AIRTIME_WEBHOOK_SECRET: secret },
  });
  servers.push(server);
  const ready = await server.waitFor(/listening on (http:\/\/\S+)/, 30_000);
  if (ready.kind !== "matched") throw new Error(`the guide's express server did not start: ${server.output()}`);
  return ready.match[1] as string;
}

let server: RunningProcess;

beforeAll(async () => {
  handlerUrl = await startGuideServer();
  server = servers[0] as RunningProcess;
});

afterAll(async () => {
  for (const running of servers) await running.stop();
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
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

it("applies a message and its 2 duplicates once, and answers 2xx to each", async () => {
  const { code, output } = await trigger(["success", "--duplicate", "2", "--reference", "GUIDE-DUP"]);
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

async function handlerCheck(webhookUrl: string): Promise<{ code: number | null; output: string }> {
  const orders = new URL("/orders/{reference}", webhookUrl).href.replace("%7Breference%7D", "{reference}");
  const child = runCli([
    "handler-check",
    "--handler",
    webhookUrl,
    "--secret",
    secret,
    "--state",
    orders,
    "--effects",
    "/applied",
  ]);
  const code = await child.exited;
  return { code, output: child.output() };
}

it("the guide's express handler passes handler-check", async () => {
  const { code, output } = await handlerCheck(handlerUrl);
  expect(code, output).toBe(0);
  expect(output).toContain("ok: the handler kept every rule over 50 generated sequences");
});

const BUGS: readonly (readonly [string, Edit, string])[] = [
  [
    "a duplicate credit",
    {
      file: "airtime-events.js",
      from: "  if (handled.has(webhookId)) return; // a retry or a duplicate: already done\n",
      to: "",
    },
    "idempotence",
  ],
  [
    "a regression to an older status",
    { file: "airtime-events.js", from: "  if (current?.status === REVERSED) return;\n", to: "" },
    "convergence",
  ],
  [
    "a missing signature check",
    {
      file: "express-server.js",
      from: "event = webhook.verify(req.body, req.headers);",
      to: "event = JSON.parse(req.body);",
    },
    "authenticity",
  ],
];

it.each(BUGS)("handler-check finds %s in the guide's handler, by its rule", async (_bug, edit, rule) => {
  const { code, output } = await handlerCheck(await startGuideServer([edit]));
  expect(code, output).toBe(1);
  expect(output).toContain(`✗ ${rule}: `);
});
