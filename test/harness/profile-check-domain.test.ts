/**
 * `profile check` places its order inside the profile's domain, the
 * reference pattern included: against a provider that takes only
 * references like `TX0123456789`, the check's order is accepted and every
 * pointer is read; our own `pc-…` reference was refused with a 400 before.
 * The same rule gives the contract harness's orders a reference the domain
 * accepts.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, expect, test, vi } from "vitest";
import { parse, stringify } from "yaml";
import { profile } from "../../src/cli/profile.ts";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { referenceInDomain, shapeReference } from "../../src/harness/commands/order-inputs.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const TOKEN = "domain-check-token";
const PATTERN = "^TX[0-9]{10}$";
const closers: (() => Promise<unknown>)[] = [];

afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  for (const close of closers) await close();
});

/** The word-status example, taking only `TX` and ten digits as a reference. */
async function strictReferenceProfile(): Promise<string> {
  const text = await readFile(join(ROOT, "examples/providers/word-statuses-hmac.yaml"), "utf8");
  const document = parse(text) as { domain: Record<string, unknown> };
  document.domain.reference = { pattern: PATTERN, maxLength: 12 };
  return stringify(document);
}

test("profile check orders with a reference the profile's pattern accepts", async () => {
  const text = await strictReferenceProfile();
  const loaded = parseProviderProfile(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const sim: Simulator = await createSimulator({ provider: loaded.profile, demo: { token: TOKEN, balance: 100_000 } });
  closers.push(() => sim.close());
  const url = await sim.listen(0);
  const dir = await mkdtemp(join(tmpdir(), "profile-domain-"));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "provider.yaml");
  await writeFile(file, text);

  const printed: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void printed.push(String(line)));
  const code = await profile(["check", file, "--target", url, "--token", TOKEN]);
  const output = printed.join("\n");
  expect(output).not.toContain("400");
  expect(output).toMatch(/reference at \S+ → "TX\d{10}" ✓/);
  expect(code, output).toBe(0);
});

test("a drawn reference matches the pattern, repeats for the same base and differs for another", () => {
  const domain = compileProfile(parseProfileOrThrow(PATTERN)).domain;
  const first = referenceInDomain(domain, "pc-0001");
  expect(first).toMatch(new RegExp(PATTERN, "u"));
  expect(referenceInDomain(domain, "pc-0001")).toBe(first);
  expect(referenceInDomain(domain, "pc-0002")).not.toBe(first);
  // The harness's orders take the same way when their own reference does not fit.
  expect(shapeReference("ref-0001", undefined, domain)).toMatch(new RegExp(PATTERN, "u"));
  // A base that fits is kept, cut to the longest allowed.
  const open = compileProfile(parseProfileOrThrow("^[a-z0-9-]+$")).domain;
  expect(referenceInDomain(open, "pc-0001")).toBe("pc-0001");
});

function parseProfileOrThrow(pattern: string) {
  const loaded = parseProviderProfile(
    stringify({ profile: 1, name: "pattern-only", domain: { reference: { pattern, maxLength: 12 } } }),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}
