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

interface CheckRun {
  /** Where the foreign target posts its webhooks; default: where the check listens. */
  readonly postTo?: (listenPort: number) => string;
  /** Run without --listen and --webhook-secret. */
  readonly noListen?: boolean;
  readonly timeout?: string;
}

async function checkAgainstForeign(profileText: string, run: CheckRun = {}): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), "profile-check-"));
  dirs.push(dir);
  const file = join(dir, "foreign.yaml");
  await writeFile(file, profileText);
  const port = await freePort();
  const target = await startForeignTarget({
    failureRate: 0,
    reversalRate: 0,
    webhook: { url: run.postTo?.(port) ?? `http://127.0.0.1:${port}/webhooks`, secret: SECRET },
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
    ...(run.noListen === true ? [] : ["--listen", `127.0.0.1:${port}`, "--webhook-secret", SECRET]),
    ...(run.timeout === undefined ? [] : ["--timeout", run.timeout]),
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

test("without --listen it says the webhook was not checked and how to check it", async () => {
  const { code, output } = await checkAgainstForeign(await readFile(FOREIGN_PROFILE, "utf8"), { noListen: true });
  expect(output).toContain("webhook not checked: add --listen HOST:PORT --webhook-secret SECRET");
  expect(output).toContain("post its webhooks to http://HOST:PORT/webhooks");
  expect(output).not.toContain("webhook signature");
  expect(code).toBe(0);
}, 60_000);

test("with --listen, a webhook that never comes asks whether the target posts to the listen address", async () => {
  const elsewhere = await freePort();
  const { code, output } = await checkAgainstForeign(await readFile(FOREIGN_PROFILE, "utf8"), {
    postTo: () => `http://127.0.0.1:${elsewhere}/webhooks`,
    timeout: "3s",
  });
  expect(output).toMatch(/no webhook for pc-[0-9a-f]+ within 3000 ms/);
  expect(output).toMatch(
    /is the target set to post its webhooks to http:\/\/127\.0\.0\.1:\d+\/webhooks\? \(requests received: 0\)/,
  );
  expect(output).not.toContain("webhook not checked");
  expect(code).toBe(1);
}, 60_000);

test("profile init --help and profile check --help print the usage, write no file and exit 0", async () => {
  const printed: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
  const stray = await readFile("--help", "utf8").then(
    () => true,
    () => false,
  );
  expect(stray, "a file named --help was already here").toBe(false);
  try {
    expect(await profile(["init", "--help"])).toBe(0);
    expect(await profile(["check", "--help"])).toBe(0);
    expect(await profile(["init", "-h"])).toBe(0);
    const wrote = await readFile("--help", "utf8").then(
      () => true,
      () => false,
    );
    expect(wrote).toBe(false);
  } finally {
    await rm("--help", { force: true });
  }
  expect(printed.filter((text) => text.startsWith("usage: airtime-harness profile check FILE"))).toHaveLength(3);
  expect(printed.join("\n")).not.toContain("wrote");
  expect(errors).toEqual([]);
});

test("profile init refuses an option it does not know instead of writing a file named after it", async () => {
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
  try {
    expect(await profile(["init", "--force"])).toBe(2);
  } finally {
    await rm("--force", { force: true });
  }
  expect(errors.join("\n")).toContain("takes one FILE, not '--force'");
});
