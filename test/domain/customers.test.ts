import { describe, expect, it } from "vitest";
import { createCustomerDirectory } from "../../src/domain/customers.ts";
import { createSeededRandom, createSequentialIds } from "../../src/domain/ids.ts";
import type { Random } from "../../src/domain/ports.ts";
import { createCryptoRandom } from "../../src/simulator/embedded-domain.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";
import { CUSTOMER, createTestDomain } from "./support.ts";

function directory(secrets: Random = createCryptoRandom()) {
  const store = createMemoryStore();
  const time = createTimeKeeper({ mode: "virtual", startAt: 0 });
  const customers = createCustomerDirectory({ store, ids: createSequentialIds(), clock: time.clock, secrets });
  return { store, time, customers };
}

describe("creating customers", () => {
  it("generates id, name, token and API key, and always a default wallet", async () => {
    const { customers, store } = directory();
    const created = await customers.create({});
    expect(created).toMatchObject({
      kind: "created",
      customer: { id: "cus_1", name: "cus_1", wallets: [{ shortcode: null, balanceCents: 0, currency: "KES" }] },
    });
    if (created.kind !== "created") return;
    expect(created.customer.tokens).toHaveLength(1);
    expect(created.customer.tokens[0]).toMatch(/^tok_[0-9a-z]{32}$/);
    expect(created.customer.apiKey).toMatch(/^key_[0-9a-z]{32}$/);
    expect((await store.findCustomerByToken(created.customer.tokens[0]!))?.id).toBe("cus_1");
  });

  it("draws secrets only from the injected source: node:crypto in the simulator, a seeded one when a test asks", async () => {
    const secretsOf = async (secrets: Random) => {
      const { customers } = directory(secrets);
      const created = await customers.create({});
      if (created.kind !== "created") return undefined;
      const issued = await customers.issueToken(created.customer.id, created.customer.apiKey);
      return {
        token: created.customer.tokens[0],
        apiKey: created.customer.apiKey,
        issued: issued?.kind === "issued" ? issued.accessToken : undefined,
      };
    };
    // A constant source proves no other randomness is read: every character is the alphabet's first.
    expect(await secretsOf({ next: () => 0 })).toEqual({
      token: `tok_${"0".repeat(32)}`,
      apiKey: `key_${"0".repeat(32)}`,
      issued: `at_${"0".repeat(32)}`,
    });
    expect(await secretsOf(createSeededRandom(1))).toEqual(await secretsOf(createSeededRandom(1)));
    expect(await secretsOf(createCryptoRandom())).not.toEqual(await secretsOf(createCryptoRandom()));
  });

  it("keeps the given wallets, the default one first", async () => {
    const { customers } = directory();
    const created = await customers.create({
      id: "cus_shop",
      name: "Shop",
      tokens: ["t1", "t2"],
      apiKey: "secret",
      wallets: [{ shortcode: "600100", balanceCents: 50 }, { balanceCents: 700 }],
      webhook: { url: "http://127.0.0.1:9/h", secrets: ["whsec_a"] },
    });
    expect(created).toMatchObject({
      kind: "created",
      customer: {
        id: "cus_shop",
        tokens: ["t1", "t2"],
        apiKey: "secret",
        wallets: [
          { shortcode: null, balanceCents: 700 },
          { shortcode: "600100", balanceCents: 50 },
        ],
        webhook: { url: "http://127.0.0.1:9/h" },
      },
    });
  });

  it("refuses a taken id, a token another customer owns, and malformed wallets", async () => {
    const { customers } = directory();
    await customers.create({ id: "a", tokens: ["shared"] });
    expect(await customers.create({ id: "a" })).toEqual({ kind: "id_taken", id: "a" });
    expect(await customers.create({ id: "b", tokens: ["shared"] })).toEqual({ kind: "token_taken" });
    expect(await customers.create({ wallets: [{ balanceCents: -1 }] })).toMatchObject({ kind: "invalid" });
    expect(await customers.create({ wallets: [{ balanceCents: 1.5 }] })).toMatchObject({ kind: "invalid" });
    expect(
      await customers.create({
        wallets: [
          { shortcode: "1", balanceCents: 1 },
          { shortcode: "1", balanceCents: 2 },
        ],
      }),
    ).toMatchObject({ kind: "invalid" });
    expect(await customers.create({ tokens: [""] })).toMatchObject({ kind: "invalid" });
    expect((await customers.list()).map((c) => c.id)).toEqual(["a"]);
  });
});

describe("updating customers", () => {
  it("changes name, tokens, balances and webhook, and adds wallets", async () => {
    const { customers, store } = directory();
    await customers.create({ id: "a", tokens: ["old"], wallets: [{ balanceCents: 100 }] });
    const updated = await customers.update("a", {
      name: "Renamed",
      tokens: ["new"],
      wallets: [{ balanceCents: 5_000 }, { shortcode: "777", balanceCents: 9 }],
      webhook: { url: "http://127.0.0.1:9/x", secrets: ["whsec_b"] },
    });
    expect(updated).toMatchObject({
      kind: "updated",
      customer: {
        name: "Renamed",
        tokens: ["new"],
        wallets: [
          { shortcode: null, balanceCents: 5_000 },
          { shortcode: "777", balanceCents: 9 },
        ],
        webhook: { url: "http://127.0.0.1:9/x" },
      },
    });
    expect(await store.findCustomerByToken("old")).toBeUndefined();
    const cleared = await customers.update("a", { webhook: null });
    expect(cleared.kind === "updated" && cleared.customer.webhook).toBe(undefined);
  });

  it("never overwrites a balance it was not asked to change", async () => {
    const { customers, store } = directory();
    await customers.create({ id: "a", wallets: [{ balanceCents: 1_000 }] });
    // Spent meanwhile, by an order placed elsewhere.
    await store.setWalletBalance("a", null, 700);
    await customers.update("a", { name: "x" });
    expect((await customers.get("a"))?.wallets[0]?.balanceCents).toBe(700);
  });

  it("reports an unknown customer, a taken token and bad wallets", async () => {
    const { customers } = directory();
    await customers.create({ id: "a", tokens: ["ta"] });
    await customers.create({ id: "b", tokens: ["tb"] });
    expect(await customers.update("zzz", { name: "x" })).toEqual({ kind: "not_found" });
    expect(await customers.update("b", { tokens: ["ta"] })).toEqual({ kind: "token_taken" });
    expect(await customers.update("a", { tokens: ["ta", "extra"] })).toMatchObject({ kind: "updated" });
    expect(await customers.update("a", { wallets: [{ balanceCents: -5 }] })).toMatchObject({ kind: "invalid" });
  });
});

describe("issued tokens", () => {
  it("exchange the API key for a token that authenticates until it expires", async () => {
    const domain = await createTestDomain();
    const issued = await domain.customers.issueToken(CUSTOMER, "key_test", 60);
    expect(issued).toMatchObject({ kind: "issued", issuedAt: domain.clock.now(), expiresInSeconds: 60 });
    if (issued.kind !== "issued") return;
    expect(issued.accessToken).toMatch(/^at_[0-9a-z]{32}$/);
    expect((await domain.service.authenticate(issued.accessToken))?.id).toBe(CUSTOMER);
    await domain.time.advance(59_999);
    expect((await domain.service.authenticate(issued.accessToken))?.id).toBe(CUSTOMER);
    await domain.time.advance(1);
    expect(await domain.service.authenticate(issued.accessToken)).toBeUndefined();
  });

  it("give the same answer for a wrong key and an unknown customer", async () => {
    const domain = await createTestDomain();
    expect(await domain.customers.issueToken(CUSTOMER, "key_tes")).toEqual({ kind: "invalid_client" });
    expect(await domain.customers.issueToken(CUSTOMER, "")).toEqual({ kind: "invalid_client" });
    expect(await domain.customers.issueToken("cus_nobody", "key_test")).toEqual({ kind: "invalid_client" });
  });

  it("last an hour by default and refuse a nonsense lifetime", async () => {
    const domain = await createTestDomain();
    expect(await domain.customers.issueToken(CUSTOMER, "key_test")).toMatchObject({ expiresInSeconds: 3600 });
    await expect(domain.customers.issueToken(CUSTOMER, "key_test", 0)).rejects.toThrow(RangeError);
  });
});
