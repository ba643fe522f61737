/**
 * `airtime-harness profile check` against the foreign provider: every
 * pointer of its profile is printed with what it found; with one pointer
 * wrong, that pointer is named and the exit code is 1. `profile init` writes
 * a starter file that is a valid profile.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, expect, test, vi } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { profile } from "../../src/cli/profile.ts";
import { freePort } from "../../src/harness/child-process.ts";
import { type ForeignTarget, startForeignTarget } from "./foreign/foreign-target.ts";

const SECRET = "profile-check-secret";
const dirs: string[] = [];
const targets: ForeignTarget[] = [];

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  for (const target of targets) await target.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function checkAgainstForeign(profileText: string): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), "profile-check-"));
  dirs.push(dir);
  const file = join(dir, "foreign.yaml");
  await writeFile(file, profileText);
  const port = await freePort();
  const target = await startForeignTarget({
    failureRate: 0,
    reversalRate: 0,
    webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: SECRET },
  });
  targets.push(target);
  const printed: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  const code = await profile([
    "check",
    file,
    "--target",
    target.url,
    "--token-command",
    target.tokenCommand,
    "--listen",
    `127.0.0.1:${port}`,
    "--webhook-secret",
    SECRET,
  ]);
  return { code, output: printed.join("\n") };
}

const FOREIGN_PROFILE = new URL("./foreign/foreign-profile.yaml", import.meta.url);

test("against the foreign provider it prints every pointer with what it found, and exits 0", async () => {
  const { code, output } = await checkAgainstForeign(await readFile(FOREIGN_PROFILE, "utf8"));
  expect(output).toMatch(/order id at \/data\/transactionId → "TX[^"]+" ✓/);
  expect(output).toMatch(/order status at \/data\/statusCode → 0 = Pending \(pending\) ✓/);
  expect(output).toMatch(/lookup reference at \/data\/ref → "pc-[0-9a-f]+" ✓/);
  expect(output).toMatch(/lookup status at \/data\/status → "SUCCESS" = Success \(success\) ✓/);
  expect(output).toMatch(/balance at \/data\/available → "\d+\.\d{2}" ✓/);
  expect(output).toMatch(/error code at \/error\/code → "idempotency_payload_mismatch" ✓/);
  expect(output).toContain("webhook signature (hmac sha256 hex in X-Signature over X-Timestamp.body) ✓");
  expect(output).toMatch(/webhook reference at \/data\/ref → "pc-[0-9a-f]+" ✓/);
  expect(output).toMatch(/every pointer and rule found what it names/);
  expect(code).toBe(0);
}, 60_000);

test("with one wrong pointer it names that pointer and exits 1", async () => {
  const text = (await readFile(FOREIGN_PROFILE, "utf8")).replace(
    "reference: /data/ref\n",
    "reference: /data/reference\n",
  );
  const { code, output } = await checkAgainstForeign(text);
  expect(output).toMatch(/lookup reference at \/data\/reference → nothing ✗/);
  expect(output).toMatch(/1 miss: lookup reference at \/data\/reference$/m);
  expect(code).toBe(1);
}, 60_000);

test("profile init writes a commented starter file that is a valid profile, and never overwrites one", async () => {
  const dir = await mkdtemp(join(tmpdir(), "profile-init-"));
  dirs.push(dir);
  const file = join(dir, "starter.yaml");
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  expect(await profile(["init", file])).toBe(0);
  const text = await readFile(file, "utf8");
  expect(text).toMatch(/^# yaml-language-server: \$schema=/);
  expect(parseProviderProfile(text).ok).toBe(true);
  expect(await profile(["init", file])).toBe(2);
});
