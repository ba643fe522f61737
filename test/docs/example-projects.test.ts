/**
 * The handler projects in examples/ are the guide's code (docs/webhook-handler.md),
 * word for word, each with the dependencies its server imports, so a reader
 * can copy a folder out and run it. The Express project runs here from its
 * own folder, on a real port, with `airtime-harness trigger` aimed at it.
 * Fastify and Hono are not dependencies of this package, so those two
 * projects are compared, not run.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningProcess, startProcess } from "../../src/harness/child-process.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { freePort, runCli } from "../support/processes.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const GUIDE = join(ROOT, "docs/webhook-handler.md");

const EXAMPLES = [
  { directory: "examples/express-handler", server: "express-server.js", packages: ["express"] },
  { directory: "examples/fastify-handler", server: "fastify-server.js", packages: ["fastify"] },
  { directory: "examples/hono-handler", server: "hono-server.js", packages: ["hono", "@hono/node-server"] },
];

/** The guide's code blocks that open with a `// name.js` line, by file name. */
async function guideFiles(): Promise<Map<string, string>> {
  const text = await readFile(GUIDE, "utf8");
  const files = new Map<string, string>();
  for (const match of text.matchAll(/```js\n\/\/ ([\w.-]+\.js)\n([\s\S]*?)```/g)) {
    files.set(match[1] as string, match[2] as string);
  }
  return files;
}

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
});

describe("the Express project, run from its own folder", () => {
  const secret = generateWebhookSecret();
  let server: RunningProcess;
  let handlerUrl: string;

  beforeAll(async () => {
    // Its `import "express"` resolves to this package's dependencies, as `npm install` there would give.
    const directory = resolve(ROOT, "examples/express-handler");
    const port = await freePort();
    server = startProcess(process.execPath, [join(directory, "express-server.js")], {
      env: { ...process.env, PORT: String(port), AIRTIME_WEBHOOK_SECRET: secret },
    });
    const ready = await server.waitFor(/listening on (http:\/\/\S+)/, 30_000);
    if (ready.kind !== "matched") throw new Error(`the express example did not start: ${server.output()}`);
    handlerUrl = ready.match[1] as string;
  });

  afterAll(async () => {
    await server.stop();
  });

  async function trigger(args: readonly string[]): Promise<{ code: number | null; output: string }> {
    const child = runCli(["trigger", ...args, "--forward-to", handlerUrl, "--secret", secret]);
    const code = await child.exited;
    return { code, output: child.output() };
  }

  it("verifies a triggered Success webhook and applies it", async () => {
    const { code, output } = await trigger(["success", "--reference", "EXAMPLE-OK"]);
    expect(code, output).toBe(0);
    expect(server.output()).toContain("EXAMPLE-OK: 20 Success");
  });

  it("refuses a bad signature, so trigger exits 1 and nothing is applied", async () => {
    const { code, output } = await trigger(["timeout", "--bad-signature", "--reference", "EXAMPLE-BAD"]);
    expect(code, output).toBe(1);
    expect(server.output()).not.toContain("EXAMPLE-BAD");
  });
});
