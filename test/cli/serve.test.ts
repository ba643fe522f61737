import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { parseServeArgs, serve } from "../../src/cli/serve.ts";
import { CLI_BIN as BIN } from "../support/processes.ts";

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, "serve", ...args], { env: { ...process.env, ...env } });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const started = () =>
    new Promise<string>((done, fail) => {
      const timer = setInterval(() => {
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match?.[1] !== undefined && stdout.includes("curl")) {
          clearInterval(timer);
          done(match[1]);
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          fail(new Error(`serve exited ${child.exitCode}: ${stderr}`));
        }
      }, 25);
    });
  return { child, started, exited, out: () => stdout, err: () => stderr };
}

describe("airtime-harness serve (child process)", () => {
  test("starts, prints URL, tokens and a working curl line, answers, and closes on SIGTERM finishing a request in flight", async () => {
    const server = start(["--port", "0", "--clock", "virtual", "--admin-token", "admin-token-cli-0001"], {
      AIRTIME_SIM_DEMO_TOKEN: "demo-token-from-env",
    });
    const url = await server.started();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const out = server.out();
    expect(out).toContain("demo-token-from-env");
    expect(out).toContain("admin-token-cli-0001");
    expect(out).toContain(`curl -sS -X POST ${url}/v1/airtime`);

    // The printed curl line's body and headers really place an order.
    const body = /-d '(.+)'/.exec(out)?.[1] as string;
    const placed = await fetch(`${url}/v1/airtime`, {
      method: "POST",
      headers: {
        authorization: "Bearer demo-token-from-env",
        "content-type": "application/json",
        "idempotency-key": "demo-key-1",
      },
      body,
    });
    expect(placed.status).toBe(200);
    expect(
      (await fetch(`${url}/_sim/clock`, { headers: { authorization: "Bearer admin-token-cli-0001" } })).status,
    ).toBe(200);

    // A request in flight: headers sent, body not finished when SIGTERM arrives.
    const payload = JSON.stringify({ account: "0712345678", amount: 10, currency: "KES", reference: "in-flight" });
    const inFlight = new Promise<{ status: number; text: string }>((done, fail) => {
      const req = request(
        `${url}/v1/airtime`,
        {
          method: "POST",
          headers: {
            authorization: "Bearer demo-token-from-env",
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(payload)),
          },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => done({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", fail);
      req.write(payload.slice(0, 10));
      setTimeout(() => {
        server.child.kill("SIGTERM");
        setTimeout(() => req.end(payload.slice(10)), 300);
      }, 100);
    });
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ reference: "in-flight", status: 0 });
    expect(await server.exited).toBe(0);
    expect(server.out()).toContain("closed");
    // Nothing accepts connections any more.
    await expect(fetch(`${url}/v1/balance`)).rejects.toThrow();
  });

  test("a bad flag: exit status 2 and a message naming it", async () => {
    const server = start(["--port", "http"]);
    expect(await server.exited).toBe(2);
    expect(server.err()).toMatch(/--port/);
  });

  test("a bad environment variable exits 2 naming the variable", async () => {
    const server = start([], { AIRTIME_SIM_PORT: "-1" });
    expect(await server.exited).toBe(2);
    expect(server.err()).toContain("AIRTIME_SIM_PORT");
  });

  test("--help prints every flag with its environment twin and exits 0", async () => {
    const server = start(["--help"]);
    expect(await server.exited).toBe(0);
    for (const flag of [
      "--port",
      "--host",
      "--config",
      "--clock",
      "--timing",
      "--seed",
      "--admin-token",
      "--demo-token",
      "--demo-balance",
    ]) {
      expect(server.out()).toContain(flag);
    }
    expect(server.out()).toContain("AIRTIME_SIM_PORT");
  });
});

describe("flag validation (in process)", () => {
  test.each([
    [["--port", "70000"], /--port/],
    [["--clock", "sometimes"], /--clock/],
    [["--timing", "soon"], /--timing/],
    [["--seed", "x"], /--seed/],
    [["--failure-rate", "2"], /--failure-rate/],
    [["--demo-balance", "1.234"], /--demo-balance/],
    [["--admin-token", "short"], /--admin-token/],
    [["--cors", "localhost:3000"], /--cors.*must be an origin/],
    [["--unknown-flag"], /unknown option --unknown-flag/],
    [["--config", "/nonexistent/sim.yaml"], /cannot read/],
  ])("%j exits 2 with a message", async (args, message) => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...parts: unknown[]) => void errors.push(parts.join(" "));
    try {
      expect(await serve(args)).toBe(2);
    } finally {
      console.error = original;
    }
    expect(errors.join("\n")).toMatch(message);
  });
});

describe("settings precedence", () => {
  test("flags override environment, which overrides the config file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serve-config-"));
    const file = join(dir, "sim.yaml");
    writeFileSync(file, "clock: virtual\nseed: 1\nfailureRate: 0.5\ntiming: 5s\n");
    const parsed = await parseServeArgs(["--config", file, "--seed", "3"], {
      AIRTIME_SIM_SEED: "2",
      AIRTIME_SIM_TIMING: "1s",
    });
    expect(parsed.kind).toBe("settings");
    if (parsed.kind !== "settings") return;
    expect(parsed.settings.options).toMatchObject({
      clock: "virtual",
      seed: 3,
      failureRate: 0.5,
      timing: { kind: "fixed", ms: 1000 },
    });
    expect(parsed.settings.port).toBe(4010);
    expect(parsed.settings.host).toBe("127.0.0.1");
  });
});

test("--cors and AIRTIME_SIM_CORS give the origins, a comma-separated list", async () => {
  const fromFlag = await parseServeArgs(["--cors", "http://localhost:5173, https://qa.example.com"], {});
  const fromEnv = await parseServeArgs([], { AIRTIME_SIM_CORS: "*" });
  expect(fromFlag.kind === "settings" && fromFlag.settings.options.cors).toEqual([
    "http://localhost:5173",
    "https://qa.example.com",
  ]);
  expect(fromEnv.kind === "settings" && fromEnv.settings.options.cors).toEqual(["*"]);
});
