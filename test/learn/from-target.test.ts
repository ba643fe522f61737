/**
 * `profile init --from-target` against two test providers that differ from
 * our spec, from the foreign provider and from each other in every open
 * dimension (providers/jambo-dialect.ts, providers/simu-dialect.ts): words
 * at a nested pointer, an error code inside an array, HMAC-hex signatures
 * over timestamp.body, non-order events among the webhooks. The profile it
 * writes names each provider's bodies, statuses, errors and webhooks, and
 * passes `profile check`; the probe spends no more than its budget, as the
 * provider counts it, prints every request the provider received, and
 * writes nothing but the profile.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { startLearnKit, WEBHOOK_SECRET, type LearnKit } from "./learn-kit.ts";
import { JAMBO } from "./providers/jambo-dialect.ts";
import { SIMU } from "./providers/simu-dialect.ts";

const kits: LearnKit[] = [];
afterEach(async () => {
  await Promise.all(kits.splice(0).map((kit) => kit.close()));
});

async function kitFor(...args: Parameters<typeof startLearnKit>): Promise<LearnKit> {
  const kit = await startLearnKit(...args);
  kits.push(kit);
  return kit;
}

async function inferred(kit: LearnKit, file: string): Promise<ProviderProfile> {
  const loaded = parseProviderProfile(await readFile(file, "utf8"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

const EXPECTED = [
  {
    dialect: JAMBO,
    bodies: {
      order: { id: "/result/txn/id", reference: "/result/txn/clientRef", status: "/result/txn/stateCode" },
      lookup: {
        status: "/result/txn/state/name",
        amount: "/result/txn/value",
        passthrough: {
          account: "/result/txn/msisdn",
          service: "/result/txn/network",
          createdAt: "/result/txn/createdAt",
          updatedAt: "/result/txn/state/since",
        },
      },
      error: { code: "/errors/0/code" },
      webhook: {
        status: "/txn/state/name",
        reference: "/txn/clientRef",
        passthrough: { account: "/txn/msisdn", service: "/txn/network", timestamp: "/txn/state/since" },
        extra: { "/txn/createdAt": { orderCreatedAt: true } },
      },
      balance: { amount: "/result/wallet/funds", passthrough: { currency: "/result/wallet/currency" } },
    },
    notWritten: [],
    money: "number",
    words: { 0: "QUEUED", 1: "DELIVERED" },
    http: { invalidInput: 422, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
    errorCodes: {
      invalidInput: "E_VALIDATION",
      unauthorized: "E_AUTH",
      insufficientBalance: "E_FUNDS",
      notFound: "E_NO_SUCH_TXN",
    },
    webhooks: {
      event: { pointer: "/kind", values: ["txn.update"] },
      deliveryId: { header: "Jambo-Delivery" },
      signing: {
        scheme: "hmac",
        header: "Jambo-Signature",
        hash: "sha256",
        encoding: "hex",
        signed: "timestamp.body",
        timestampHeader: "Jambo-Timestamp",
      },
    },
    setAside: "wallet.debited",
  },
  {
    dialect: SIMU,
    bodies: {
      order: {
        id: "/payload/orderNo",
        reference: "/payload/merchantReference",
        status: "/payload/code",
        extra: { "/ok": { constant: true } },
      },
      lookup: {
        status: "/payload/progress/phase",
        amount: "/payload/amount",
        passthrough: { account: "/payload/recipient", updatedAt: "/payload/updatedAt" },
        extra: { "/ok": { constant: true } },
      },
      error: { code: "/problems/0/reason", extra: { "/ok": { constant: false } } },
      webhook: {
        status: "/payload/progress/phase",
        reference: "/payload/merchantReference",
        passthrough: { account: "/payload/recipient", timestamp: "/occurredAt" },
      },
      balance: {
        amount: "/payload/float",
        extra: { "/ok": { constant: true }, "/payload/held": { constant: "0.00" } },
      },
    },
    // A step counter that moves with the status: no member of ours or template writes it.
    notWritten: ["/payload/progress/step"],
    money: "string",
    words: { 0: "processing", 10: "done" },
    http: { invalidInput: 400, unauthorized: 403, insufficientBalance: 200, notFound: 404, wrongMethod: 404 },
    errorCodes: {
      invalidInput: "BAD_INPUT",
      unauthorized: "FORBIDDEN",
      insufficientBalance: "FLOAT_TOO_LOW",
      notFound: "UNKNOWN_ORDER",
    },
    webhooks: {
      event: { pointer: "/topic", values: ["order.status"] },
      deliveryId: { pointer: "/id" },
      signing: {
        scheme: "hmac",
        header: "Simu-Signature",
        hash: "sha512",
        encoding: "hex",
        prefix: "v1=",
        signed: "timestamp.body",
        timestampHeader: "Simu-Time",
      },
    },
    setAside: "float.changed",
  },
] as const;

describe.each(EXPECTED)("$dialect.name", (expected) => {
  test("the probe infers its bodies, statuses, errors and webhooks, and the profile passes profile check", async () => {
    // Orders always succeed here, so the check's own order ends in a status the probe has seen.
    const kit = await kitFor(expected.dialect, { failureRate: 0, reversalRate: 0 });
    const file = join(kit.dir, "provider.yaml");
    const run = await kit.cli(["init", ...kit.fromTargetArgs(), file]);
    expect(run.code, run.printed.join("\n")).toBe(0);
    const profile = await inferred(kit, file);
    expect(profile.bodies).toMatchObject(expected.bodies);
    expect(profile.money).toBe(expected.money);
    expect(profile.statuses?.values).toBe("word");
    for (const [code, word] of Object.entries(expected.words)) {
      expect(profile.statuses?.table).toContainEqual(expect.objectContaining({ code: Number(code), word }));
    }
    expect(profile.http).toEqual(expected.http);
    expect(profile.errorCodes).toEqual(expected.errorCodes);
    expect(profile.webhooks).toEqual(expected.webhooks);
    const text = await readFile(file, "utf8");
    expect(text).toContain(`set aside, not order events: ${expected.setAside}`);
    expect(text).toMatch(/status: \S+ # the field that changed between the first lookup and the final one/);
    for (const pointer of expected.notWritten)
      expect(text).toMatch(new RegExp(`not inferred: bodies\\.lookup: ${pointer} .*not written`));
    expect(await readdir(kit.dir)).toEqual(["provider.yaml"]);
    const check = await kit.cli([
      "check",
      file,
      "--target",
      kit.provider.url,
      "--token",
      kit.provider.tokens.primary,
      "--listen",
      `127.0.0.1:${kit.port}`,
      "--webhook-secret",
      WEBHOOK_SECRET,
    ]);
    expect(check.code, check.printed.join("\n")).toBe(0);
  }, 60_000);

  test("the probe learns failed and reversed statuses from the balance, and spends within its budget", async () => {
    const kit = await kitFor(expected.dialect, { failureRate: 0.5, reversalRate: 0.5, seed: 7 });
    const file = join(kit.dir, "provider.yaml");
    const smallest = expected.dialect.domain.minKes;
    const run = await kit.cli(["init", ...kit.fromTargetArgs(), "--budget", String(smallest * 8), file]);
    expect(run.code, run.printed.join("\n")).toBe(0);
    expect(kit.provider.spentKes()).toBeGreaterThan(0);
    expect(kit.provider.spentKes()).toBeLessThanOrEqual(smallest * 8);
    const printedRequests = run.printed.filter((line) => line.startsWith("→ ")).length;
    expect(printedRequests).toBe(kit.provider.requests().length);
    const table = (await inferred(kit, file)).statuses?.table ?? [];
    const classOf = (status: string) =>
      table.find((entry) => entry.word === expected.dialect.word(status as never))?.class;
    expect(classOf("SUCCESS")).toBe("success");
    for (const status of ["FAILED", "TIMEOUT"]) expect([undefined, "failed"]).toContain(classOf(status));
    expect([undefined, "reversed"]).toContain(classOf("REVERSED"));
    expect(table.some((entry) => entry.class === "failed" || entry.class === "reversed")).toBe(true);
  }, 60_000);

  test("by default it spends three orders of the smallest amount the provider takes, and no more than a smaller budget", async () => {
    const kit = await kitFor(expected.dialect);
    const smallest = expected.dialect.domain.minKes;
    await kit.cli(["init", ...kit.fromTargetArgs(), join(kit.dir, "a.yaml")]);
    expect(kit.provider.spentKes()).toBeLessThanOrEqual(smallest * 3);
    const refused = await kit.cli([
      "init",
      ...kit.fromTargetArgs(),
      "--budget",
      String(smallest - 1),
      join(kit.dir, "b.yaml"),
    ]);
    expect(refused.code).toBe(1);
    expect(kit.provider.spentKes()).toBeLessThanOrEqual(smallest * 3);
    expect(await readdir(kit.dir)).toEqual(["a.yaml"]);
  }, 60_000);
});
