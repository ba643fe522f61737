/**
 * The guide "Develop your webhook handler" (docs/webhook-handler.md): its
 * handlers are the example projects in examples/, word for word. The Express
 * project runs as its own process on a real port, and `airtime-harness
 * trigger` aimed at it gets the behaviour the guide promises: verified,
 * applied once per webhook-id, bad signatures refused. Fastify and Hono are
 * not dependencies of this package, so those projects are only compared.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const EXAMPLES = [
  { directory: "examples/express-handler", server: "express-server.js", packages: ["express"] },
  { directory: "examples/fastify-handler", server: "fastify-server.js", packages: ["fastify"] },
  { directory: "examples/hono-handler", server: "hono-server.js", packages: ["hono", "@hono/node-server"] },
];

describe.each(EXAMPLES)("$directory", (example) => {
  it("holds the guide's code, word for word", async () => {
    const files = await guideFiles();
    for (const name of ["airtime-events.js", example.server]) {
      const project = await readFile(resolve(ROOT, example.directory, name), "utf8");
      expect(project, `${example.directory}/${name}`).toBe(`// ${name}\n${files.get(name) ?? "(missing)"}`);
    }
  });

  it("depends on the packages its server imports", async () => {
    const manifest = JSON.parse(await readFile(resolve(ROOT, example.directory, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...example.packages, "standardwebhooks"].sort());
  });

  // Only the frameworks installed here can run; the Express project is run in depth below.
  const missing = example.packages.filter((name) => !existsSync(resolve(ROOT, "node_modules", name)));
  const runnable = example.directory === "examples/express-handler";
  it.skipIf(!runnable && missing.length > 0)(
    runnable ? "has what it imports installed here" : `is not run: ${missing.join(", ")} not installed here`,
    () => {
      expect(missing).toEqual([]);
    },
  );
});

beforeAll(async () => {
  // The project's own directory: its `import "express"` resolves to this package's dependencies.
  directory = resolve(ROOT, "examples/express-handler");
  const port = await freePort();
  server = startProcess(process.execPath, [join(directory, "express-server.js")], {
    env: { ...process.env, PORT: String(port), AIRTIME_WEBHOOK_SECRET: secret },
  });
  const ready = await server.waitFor(/listening on (http:\/\/\S+)/, 30_000);
  if (ready.kind !== "matched") throw new Error(`the express example did not start: ${server.output()}`);
  handlerUrl = ready.match[1] as string;
});

afterAll(async () => {
  await server?.stop();
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
