import { describe, expect, it } from "vitest";
import { DEFAULT_KEY_LIFETIME_MS } from "../../src/domain/idempotency.ts";
import { StoreUnavailableError } from "../../src/domain/ports.ts";
import { createEmbeddedDomain } from "../../src/simulator/embedded-domain.ts";
import { liveKey } from "../store/store-contract.ts";
import { CUSTOMER, command, createTestDomain, SHORTCODE, START, TOKEN } from "./support.ts";

describe("placing an order", () => {
  it("debits the wallet and stores the order at 0 Pending with a normalised recipient", async () => {
    const domain = await createTestDomain({ balanceCents: 50_000 });
    const outcome = await domain.service.placeOrder(command({ account: "712345678", amountCents: 12_345 }));
    expect(outcome).toMatchObject({
      kind: "placed",
      order: {
        id: "ord_1",
        customerId: CUSTOMER,
        reference: "ref-1",
        status: 0,
        message: "Pending",
        account: "+254712345678",
        service: "safaricom",
        amountCents: 12_345,
        shortcode: null,
        createdAt: START,
        history: [{ status: 0, message: "Pending", at: START }],
      },
    });
    expect(await domain.balance()).toBe(50_000 - 12_345);
    expect(await domain.service.getOrderByReference(CUSTOMER, "ref-1")).toMatchObject({ id: "ord_1" });
  });

  it("funds the order from the shortcode's wallet when one is named", async () => {
    const domain = await createTestDomain({ balanceCents: 1_000, shortcodeBalanceCents: 20_000 });
    const outcome = await domain.service.placeOrder(command({ shortcode: SHORTCODE, amountCents: 15_000 }));
    expect(outcome).toMatchObject({ kind: "placed", order: { shortcode: SHORTCODE } });
    expect(await domain.balance(SHORTCODE)).toBe(5_000);
    expect(await domain.balance()).toBe(1_000);
  });

  it("lets an explicit service win over the prefix (number portability)", async () => {
    const domain = await createTestDomain();
    const outcome = await domain.service.placeOrder(command({ account: "0712345678", service: "airtel" }));
    expect(outcome).toMatchObject({ kind: "placed", order: { service: "airtel" } });
  });

  it("detects each operator from its prefix", async () => {
    const domain = await createTestDomain();
    const cases = [
      ["0733123456", "airtel"],
      ["0772123456", "telkom"],
      ["0747123456", "jtl"],
      ["0763123456", "equitel"],
      ["0110123456", "safaricom"],
    ] as const;
    for (const [index, [account, service]] of cases.entries()) {
      const outcome = await domain.service.placeOrder(command({ account, reference: `r${index}` }));
      expect(outcome).toMatchObject({ kind: "placed", order: { service } });
    }
  });

  it("answers service_undetectable for a number no operator owns, without touching money or keys", async () => {
    const domain = await createTestDomain();
    const outcome = await domain.service.placeOrder(command({ account: "0123456789", idempotencyKey: "k" }));
    expect(outcome).toEqual({ kind: "service_undetectable", account: "0123456789" });
    expect(await domain.balance()).toBe(1_000_000);
    expect(await liveKey(domain.store, CUSTOMER, "k", START)).toBeUndefined();
  });

  it("answers unknown_shortcode for a shortcode the customer has no wallet for", async () => {
    const domain = await createTestDomain();
    const outcome = await domain.service.placeOrder(command({ shortcode: "999999" }));
    expect(outcome).toEqual({ kind: "unknown_shortcode", shortcode: "999999" });
    expect(await domain.orders()).toEqual([]);
  });

  it("answers insufficient_balance without debiting, and frees the reference and the key", async () => {
    const domain = await createTestDomain({ balanceCents: 5_000 });
    const refused = await domain.service.placeOrder(command({ amountCents: 5_001, idempotencyKey: "k" }));
    expect(refused).toMatchObject({
      kind: "insufficient_balance",
      reference: "ref-1",
      wallet: { balanceCents: 5_000 },
    });
    expect(await domain.balance()).toBe(5_000);
    // The client tops up and retries with the same key and reference.
    await domain.customers.update(CUSTOMER, { wallets: [{ balanceCents: 10_000 }] });
    const retried = await domain.service.placeOrder(command({ amountCents: 5_001, idempotencyKey: "k" }));
    expect(retried.kind).toBe("placed");
    expect(await domain.balance()).toBe(4_999);
  });

  it("forces insufficient balance for a scenario whatever the wallet holds", async () => {
    const domain = await createTestDomain();
    const outcome = await domain.service.placeOrder(command({}, { forceInsufficient: true }));
    expect(outcome).toMatchObject({ kind: "insufficient_balance", wallet: { balanceCents: 1_000_000 } });
    expect(await domain.balance()).toBe(1_000_000);
    expect(await domain.orders()).toEqual([]);
  });

  it("refuses a reused reference and gives the money back", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ amountCents: 1_000 }));
    const again = await domain.service.placeOrder(command({ amountCents: 2_000, account: "0733123456" }));
    expect(again).toEqual({ kind: "duplicate_reference", reference: "ref-1" });
    expect(await domain.balance()).toBe(1_000_000 - 1_000);
    expect(await domain.orders()).toHaveLength(1);
  });

  it("undoes the debit when the reference is taken between the check and the insert", async () => {
    const domain = await createTestDomain();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => domain.service.placeOrder(command({ amountCents: 1_000 }))),
    );
    expect(results.filter((r) => r.kind === "placed")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "duplicate_reference")).toHaveLength(19);
    expect(await domain.balance()).toBe(1_000_000 - 1_000);
  });

  it("keeps references per customer", async () => {
    const domain = await createTestDomain();
    await domain.customers.create({ id: "cus_other", wallets: [{ balanceCents: 100_000 }] });
    await domain.service.placeOrder(command());
    const other = await domain.service.placeOrder({ ...command(), customerId: "cus_other" });
    expect(other.kind).toBe("placed");
    expect(await domain.service.getOrderByReference("cus_other", "ref-1")).toMatchObject({ customerId: "cus_other" });
  });

  it("carries the scenario's webhook faults on the order", async () => {
    const domain = await createTestDomain();
    const outcome = await domain.service.placeOrder(command({}, { webhookFaults: { duplicates: 2 } }));
    expect(outcome).toMatchObject({ kind: "placed", order: { webhookFaults: { duplicates: 2 } } });
  });
});

describe("idempotency", () => {
  it("replays the same order with its latest status and changes nothing", async () => {
    const domain = await createTestDomain();
    const first = await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    await domain.time.advance(2_000);
    const replay = await domain.service.placeOrder(command({ idempotencyKey: "k1", account: "+254712345678" }));
    expect(first.kind).toBe("placed");
    expect(replay).toMatchObject({ kind: "replayed", order: { id: "ord_1", status: 20, message: "Success" } });
    expect(await domain.balance()).toBe(1_000_000 - 10_000);
    expect(await domain.orders()).toHaveLength(1);
  });

  it("starts a replayed order's lifecycle again when its first step's job was lost", async () => {
    const domain = await createTestDomain();
    const first = await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    expect(first).toMatchObject({ kind: "placed", order: { id: "ord_1", status: 0 } });
    // As when a Redis failover dropped the job scheduled beside the stored order.
    await domain.time.scheduler.cancel("step_ord_1_0");
    await domain.time.advance(60_000);
    expect(await domain.service.getOrderByReference(CUSTOMER, "ref-1")).toMatchObject({ status: 0 });

    await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    await domain.time.advance(60_000);
    expect(await domain.service.getOrderByReference(CUSTOMER, "ref-1")).toMatchObject({ status: 20 });
    // Replayed twice, scheduled once: one final change.
    expect(domain.changes.filter((change) => change.order.id === "ord_1" && change.final)).toHaveLength(1);
  });

  it("answers payload_mismatch for the same key with another payload, and changes nothing", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    const before = { balance: await domain.balance(), orders: await domain.orders() };
    for (const change of [
      { amountCents: 10_001 },
      { account: "0733123456" },
      { reference: "ref-2" },
      { service: "airtel" as const },
      { shortcode: SHORTCODE },
    ]) {
      expect(await domain.service.placeOrder(command({ idempotencyKey: "k1", ...change }))).toEqual({
        kind: "payload_mismatch",
      });
    }
    expect({ balance: await domain.balance(), orders: await domain.orders() }).toEqual(before);
  });

  it("treats an explicit service equal to the detected one as the same payload", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    const replay = await domain.service.placeOrder(command({ idempotencyKey: "k1", service: "safaricom" }));
    expect(replay.kind).toBe("replayed");
  });

  it("scopes keys per customer", async () => {
    const domain = await createTestDomain();
    await domain.customers.create({ id: "cus_other", wallets: [{ balanceCents: 100_000 }] });
    const mine = await domain.service.placeOrder(command({ idempotencyKey: "shared" }));
    const theirs = await domain.service.placeOrder({
      ...command({ idempotencyKey: "shared" }),
      customerId: "cus_other",
    });
    expect(mine.kind).toBe("placed");
    expect(theirs.kind).toBe("placed");
    if (mine.kind === "placed" && theirs.kind === "placed") expect(theirs.order.id).not.toBe(mine.order.id);
  });

  it("frees a key whose first use hit a duplicate reference", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ reference: "taken" }));
    const clash = await domain.service.placeOrder(command({ reference: "taken", idempotencyKey: "k" }));
    expect(clash.kind).toBe("duplicate_reference");
    const fresh = await domain.service.placeOrder(command({ reference: "new", idempotencyKey: "k" }));
    expect(fresh.kind).toBe("placed");
  });

  it("keeps a key 24 hours on the simulator clock, then the same key places a new order", async () => {
    const domain = await createTestDomain();
    const first = await domain.service.placeOrder(command({ idempotencyKey: "k", reference: "day-1" }));
    await domain.time.advance(DEFAULT_KEY_LIFETIME_MS - 1);
    const stillBound = await domain.service.placeOrder(command({ idempotencyKey: "k", reference: "day-2" }));
    expect(stillBound).toEqual({ kind: "payload_mismatch" });
    await domain.time.advance(1);
    const afterExpiry = await domain.service.placeOrder(command({ idempotencyKey: "k", reference: "day-2" }));
    expect(afterExpiry).toMatchObject({ kind: "placed", order: { reference: "day-2" } });
    expect(afterExpiry.kind === "placed" && first.kind === "placed" && afterExpiry.order.id !== first.order.id).toBe(
      true,
    );
    expect(await domain.orders()).toHaveLength(2);
  });

  it("after a customer reset the key and the reference are free again", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ idempotencyKey: "k" }));
    await domain.store.reset(CUSTOMER);
    const again = await domain.service.placeOrder(command({ idempotencyKey: "k" }));
    expect(again).toMatchObject({ kind: "placed", order: { id: "ord_2" } });
  });
});

describe("virtual clock and lifecycle", () => {
  it("fails a step whose listener was cut off from the store, and tells other listener errors apart", async () => {
    const jobErrors: unknown[] = [];
    const eventErrors: unknown[] = [];
    const domain = createEmbeddedDomain({
      clock: "virtual",
      startAt: START,
      ids: "sequential",
      onJobError: (error) => jobErrors.push(error),
      onEventError: (error) => eventErrors.push(error),
    });
    await domain.customers.create({ id: CUSTOMER, tokens: [TOKEN], wallets: [{ balanceCents: 100_000 }] });
    const failures = [new StoreUnavailableError("Redis went away"), new Error("a listener's own bug")];
    domain.events.subscribe({
      statusChanged: async () => {
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
      },
    });
    await domain.service.placeOrder(command({ reference: "cut-off" }));
    await domain.service.placeOrder(command({ reference: "buggy" }));
    await domain.time.advance(60_000);
    // The first step failed as a job (a shared scheduler runs it again); the second is only reported.
    expect(jobErrors).toEqual([expect.any(StoreUnavailableError)]);
    expect(eventErrors).toEqual([new Error("a listener's own bug")]);
  });

  it("keeps an order at 0 until the clock reaches its sampled time, then makes it final", async () => {
    const domain = await createTestDomain({ timing: { kind: "uniform", minMs: 1_000, maxMs: 5_000 } });
    const placed = await domain.service.placeOrder(command());
    if (placed.kind !== "placed") throw new Error(placed.kind);
    const dueIn = placed.order.plan?.steps[0]?.afterMs ?? -1;
    expect(dueIn).toBeGreaterThanOrEqual(1_000);
    expect(dueIn).toBeLessThanOrEqual(5_000);
    await domain.time.advance(dueIn - 1);
    expect((await domain.service.getOrderByReference(CUSTOMER, "ref-1"))?.status).toBe(0);
    await domain.time.advance(1);
    const final = await domain.service.getOrderByReference(CUSTOMER, "ref-1");
    expect(final).toMatchObject({ status: 20, message: "Success", updatedAt: START + dueIn });
    expect(final?.history.map((h) => [h.status, h.at])).toEqual([
      [0, START],
      [20, START + dueIn],
    ]);
  });

  it("reports the balance of the default wallet or a named one, with all wallets", async () => {
    const domain = await createTestDomain({ balanceCents: 700, shortcodeBalanceCents: 300 });
    expect(await domain.service.getBalance(CUSTOMER)).toMatchObject({
      kind: "balance",
      wallet: { shortcode: null, balanceCents: 700 },
      wallets: [{ balanceCents: 700 }, { balanceCents: 300 }],
    });
    expect(await domain.service.getBalance(CUSTOMER, SHORTCODE)).toMatchObject({ wallet: { balanceCents: 300 } });
    expect(await domain.service.getBalance(CUSTOMER, "nope")).toEqual({ kind: "unknown_shortcode", shortcode: "nope" });
  });

  it("authenticates a static token and nothing else", async () => {
    const domain = await createTestDomain();
    expect((await domain.service.authenticate(TOKEN))?.id).toBe(CUSTOMER);
    expect(await domain.service.authenticate("tok_tes")).toBeUndefined();
    expect(await domain.service.authenticate("")).toBeUndefined();
  });
});
