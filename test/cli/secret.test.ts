/**
 * `airtime-harness secret` prints a secret a Standard Webhooks library
 * takes, and `secret | listen --secret -` verifies webhooks signed with it,
 * as real processes joined by a shell pipe.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { expect, it } from "vitest";
import { CLI_BIN as BIN, runCli } from "../support/processes.ts";

async function secretOnce(): Promise<string> {
  const cli = runCli(["secret"]);
  expect(await cli.exited).toBe(0);
  return cli.output();
}

it("prints a fresh whsec_ secret that standardwebhooks accepts", async () => {
  const [first, second] = [await secretOnce(), await secretOnce()];
  expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
  expect(second).not.toBe(first);
  const payload = JSON.stringify({ hello: "world" });
  const hook = new Webhook(first.trim());
  const at = new Date();
  const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(at.getTime() / 1000)) };
  const signature = hook.sign("msg_1", at, payload);
  expect(hook.verify(payload, { ...headers, "webhook-signature": signature })).toEqual({ hello: "world" });
});

it("airtime-harness secret | airtime-harness listen --secret - verifies webhooks signed with that secret", async () => {
  const dir = mkdtempSync(join(tmpdir(), "secret-pipe-"));
  const kept = join(dir, "secret.txt");
  const node = JSON.stringify(process.execPath);
  const cli = `${node} ${JSON.stringify(BIN)}`;
  // tee keeps a copy of what went down the pipe, so the test can sign with it as a sender would.
  const pipeline = `${cli} secret | tee ${JSON.stringify(kept)} | ${cli} listen --secret - --port 0`;
  const shell = spawn("bash", ["-c", pipeline], { detached: true });
  let out = "";
  shell.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  shell.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  try {
    const url = await until(
      () => /listening on (\S+)/.exec(out)?.[1],
      () => out,
    );
    const secret = readFileSync(kept, "utf8").trim();
    const body = JSON.stringify({
      type: "airtime.status",
      id: "ord_pipe1",
      reference: "PIPE-1",
      status: 20,
      message: "Success",
      final: true,
    });
    const at = new Date();
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_pipe_1",
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign("msg_pipe_1", at, body),
      },
      body,
    });
    expect(res.status).toBe(200);
    await until(
      () => (out.includes("PIPE-1") ? true : undefined),
      () => out,
    );
    expect(out).not.toContain("rejected");
  } finally {
    // The pipe may already have ended on its own; a group that is gone needs no signal.
    if (shell.pid !== undefined && shell.exitCode === null) {
      try {
        process.kill(-shell.pid, "SIGTERM");
      } catch {
        // ESRCH: it ended between the check and the signal.
      }
    }
  }
});

async function until<T>(probe: () => T | undefined, describe: () => string, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(describe());
    // Polling child processes' output: there is no clock to advance here.
    await new Promise((done) => setTimeout(done, 25));
  }
}
