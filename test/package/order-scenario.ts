/**
 * The one scenario every consumer runs, written once and wrapped for each
 * kind of project: an order placed through the simulator, replayed with the
 * same key, made final on the virtual clock, and its webhook received by the
 * inbox and verified. The body is plain JavaScript that is also strict
 * TypeScript, so the same text is run by Node and type-checked by tsc.
 */

/** A fixed `whsec_` secret (32 bytes), so the scenario needs no helper to make one. */
const SECRET = "whsec_BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSY=";

/** The public names the scenario uses: the package's stable surface. */
const NAMES = [
  "createSimulator",
  "createWebhookInbox",
  "verifyWebhook",
  "SendAirtimeRequestSchema",
  "SendAirtimeResponseSchema",
  "TransactionStatusResponseSchema",
].join(", ");

const FUNCTION = `async function orderScenario() {
  const secret = "${SECRET}";
  const inbox = createWebhookInbox({ secret });
  const webhookUrl = await inbox.listen();
  const sim = await createSimulator({ clock: "virtual" });
  try {
    await sim.customers.createCustomer({
      id: "shop",
      token: "shop-token-123",
      webhook: { url: webhookUrl, secrets: [secret] },
    });
    const url = await sim.listen();
    const order = SendAirtimeRequestSchema.parse({
      account: "0712345678",
      amount: 100,
      currency: "KES",
      reference: "ORDER-1",
    });
    const send = () =>
      fetch(url + "/v1/airtime", {
        method: "POST",
        headers: {
          authorization: "Bearer shop-token-123",
          "content-type": "application/json",
          "idempotency-key": "key-1",
        },
        body: JSON.stringify(order),
      });
    const first = await send();
    const placed = SendAirtimeResponseSchema.parse(await first.json());
    const again = await send();
    const replayed = SendAirtimeResponseSchema.parse(await again.json());
    await sim.clock.advance(2_000);
    const lookup = await fetch(url + "/v1/airtime/ORDER-1", { headers: { authorization: "Bearer shop-token-123" } });
    const final = TransactionStatusResponseSchema.parse(await lookup.json());
    const delivery = await inbox.waitFor("ORDER-1", { status: 20 });
    const verified = verifyWebhook(delivery.body, delivery.headers, [secret]);
    return {
      placed: placed.status,
      replayedHeader: again.headers.get("idempotent-replayed"),
      sameOrder: replayed.id === placed.id,
      final: final.status,
      webhook: delivery.webhook?.status,
      signature: verified.kind,
    };
  } finally {
    await inbox.close();
    await sim.close();
  }
}
`;

/** What the scenario returns: placed pending, replayed as the same order, final success, a verified webhook. */
export const EXPECTED = {
  placed: 0,
  replayedHeader: "true",
  sameOrder: true,
  final: 20,
  webhook: 20,
  signature: "verified",
};

const PRINT = "console.log(JSON.stringify(await orderScenario()));\n";

/** Plain Node ESM (`.mjs`): prints the outcome as JSON. */
export const ESM_SCRIPT = `import { ${NAMES} } from "airtime-harness";\n\n${FUNCTION}\n${PRINT}`;

/** Plain Node CommonJS (`.cjs`): prints the outcome as JSON. */
export const CJS_SCRIPT = `const { ${NAMES} } = require("airtime-harness");

${FUNCTION}
orderScenario().then(
  (outcome) => console.log(JSON.stringify(outcome)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

/** TypeScript for tsc (`.ts` is ESM, `.cts` CommonJS under nodenext). */
export const TYPESCRIPT_MODULE = `import { ${NAMES} } from "airtime-harness";\n\nexport ${FUNCTION}`;

/** A vitest test in the user's project, as the docs show. */
export const VITEST_TEST = `import { expect, test } from "vitest";
import { ${NAMES} } from "airtime-harness";

${FUNCTION}
test("an order is placed, replayed, made final on the virtual clock, and its webhook verified", async () => {
  expect(await orderScenario()).toEqual(${JSON.stringify(EXPECTED)});
});
`;
