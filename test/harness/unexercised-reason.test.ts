import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { mappingToProfile } from "../../src/harness/mapping-file.ts";
import { unexercisedReason, type UnexercisedFacts } from "../../src/harness/contract-verdicts.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../src/harness/webhook-receiver.ts";

const SECRET = `whsec_${Buffer.from("a secret of at least twenty-four bytes").toString("base64")}`;
const QUIET: UnexercisedFacts = {
  stoppedAfterFailures: undefined,
  propertiesSelected: false,
  budgetRefusals: 0,
  webhooks: undefined,
};

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** Posts `payload` to the receiver over HTTP, signed with the Standard Webhooks library unless told otherwise. */
async function deliver(to: WebhookReceiver, id: string, payload: unknown, signed = true): Promise<number> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json", "webhook-id": id };
  if (signed) {
    const at = new Date();
    headers["webhook-timestamp"] = String(Math.floor(at.getTime() / 1000));
    headers["webhook-signature"] = new Webhook(SECRET).sign(id, at, body);
  }
  const response = await fetch(to.url, { method: "POST", headers, body });
  return response.status;
}

describe("a webhook check never exercised names what reached the receiver", () => {
  test("events whose reference the profile cannot find: no webhook correlated, not the budget", async () => {
    receiver = await startWebhookReceiver({ secret: SECRET, provider: compileProfile() });
    // The provider nests the reference where the profile does not look.
    expect(await deliver(receiver, "msg_1", { type: "airtime.status", data: { reference: "R-1" }, status: 20 })).toBe(
      200,
    );
    expect(await deliver(receiver, "msg_2", { type: "airtime.status", data: { reference: "R-2" }, status: 2 })).toBe(
      200,
    );
    const webhooks = receiver.arrivals();
    expect(webhooks).toEqual({
      requests: 2,
      rejected: 0,
      statusEvents: 2,
      correlated: 0,
      eventFilter: "/type in [airtime.status]",
    });
    const verdict = unexercisedReason("webhook_matches_lookup", { ...QUIET, budgetRefusals: 4, webhooks });
    expect(verdict.status).toBe("not_exercised");
    expect(verdict.reason).toMatch(/^no webhook correlated: 2 order-status event/);
    expect(verdict.reason).not.toMatch(/budget/);
  });

  test("nothing arrived, only unsigned requests, or only other events: each says so", async () => {
    receiver = await startWebhookReceiver({ secret: SECRET, provider: compileProfile() });
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks: receiver.arrivals() }).reason).toBe(
      "no webhook arrived at the receiver",
    );
    expect(await deliver(receiver, "msg_1", { type: "airtime.status", reference: "R-1", status: 20 }, false)).toBe(400);
    expect(unexercisedReason("webhook_signature_valid", { ...QUIET, webhooks: receiver.arrivals() }).reason).toBe(
      "no webhook verified: all 1 failed signature verification",
    );
    await receiver.close();
    receiver = await startWebhookReceiver({ secret: SECRET, provider: compileProfile() });
    expect(await deliver(receiver, "msg_1", { type: "balance.low", reference: "R-1", status: 20 })).toBe(200);
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks: receiver.arrivals() }).reason).toMatch(
      /^no order-status event: 1 request\(s\) arrived, none matched the profile's event filter \(\/type in \[airtime\.status\]\)$/,
    );
  });

  test("a profile that states no event filter never blames one: its deliveries lacked a reference", async () => {
    // A mapping file's profile: webhook pointers, no event (a mapping cannot state one).
    const mapping = mappingToProfile({ webhook: { reference: "/data/reference", status: "/data/status" } });
    if (!mapping.ok) throw new Error(mapping.error);
    receiver = await startWebhookReceiver({ secret: SECRET, provider: compileProfile(mapping.profile) });
    expect(await deliver(receiver, "msg_1", { event: "airtime.status", order: { reference: "R-1" } })).toBe(200);
    const webhooks = receiver.arrivals();
    expect(webhooks.eventFilter).toBeUndefined();
    const reason = unexercisedReason("webhook_delivered", { ...QUIET, webhooks }).reason;
    expect(reason).toBe(
      "no webhook correlated: 1 request(s) arrived, none carried a reference at the profile's pointer (the profile states no event filter)",
    );
    expect(reason).not.toMatch(/matched the profile's event filter/);
  });

  test("correlated webhooks leave room for the real cause; the budget is named only when it refused", async () => {
    receiver = await startWebhookReceiver({ secret: SECRET, provider: compileProfile() });
    expect(await deliver(receiver, "msg_1", { type: "airtime.status", reference: "R-1", status: 20 })).toBe(200);
    const webhooks = receiver.arrivals();
    expect(webhooks.correlated).toBe(1);
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks, budgetRefusals: 2 })).toEqual({
      status: "skipped",
      reason: "not exercised: the budget refused 2 request(s) it needs",
    });
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks })).toEqual({
      status: "not_exercised",
      reason: "no case of it came up in this run",
    });
  });

  test("a stopped run and a property selection outrank every other cause", () => {
    const webhooks = { requests: 0, rejected: 0, statusEvents: 0, correlated: 0 };
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks, stoppedAfterFailures: 1 }).reason).toMatch(
      /stopped after 1 failed check/,
    );
    expect(unexercisedReason("webhook_delivered", { ...QUIET, webhooks, propertiesSelected: true }).reason).toBe(
      "not exercised by the selected properties",
    );
    // A check that needs no webhook is not blamed on the receiver.
    expect(unexercisedReason("lookup_consistent", { ...QUIET, webhooks }).reason).toBe(
      "no case of it came up in this run",
    );
  });
});

describe("a run whose every valid order was refused says so", () => {
  const refusedAll = { sent: 12, placed: 0, lastRefusal: "HTTP 422 INVALID_REQUEST" };

  test("before the webhook gap and the budget, naming the last refusal and what to do", () => {
    const verdict = unexercisedReason("webhook_delivered", {
      ...QUIET,
      budgetRefusals: 3,
      webhooks: { requests: 0, rejected: 0, statusEvents: 0, correlated: 0 },
      placements: refusedAll,
    });
    expect(verdict.status).toBe("not_exercised");
    expect(verdict.reason).toMatch(
      /refused all 12 valid order\(s\).*HTTP 422 INVALID_REQUEST.*`domain` or give --spec/,
    );
  });

  test("not when one order was placed, nor when none was sent", () => {
    const someTaken = { ...refusedAll, placed: 1 };
    expect(unexercisedReason("no_double_charge", { ...QUIET, placements: someTaken }).reason).toBe(
      "no case of it came up in this run",
    );
    expect(
      unexercisedReason("no_double_charge", { ...QUIET, placements: { sent: 0, placed: 0, lastRefusal: undefined } })
        .reason,
    ).toBe("no case of it came up in this run");
  });
});
