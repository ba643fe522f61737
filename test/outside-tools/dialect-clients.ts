/**
 * A client per example provider, as an integrator writes it against the
 * provider's documentation: `openapi-fetch` typed by what `openapi-typescript`
 * generates from the dialect's document (`./schema.js` beside it), reading
 * each field where that dialect keeps it — `body.result.transactionId`, the
 * status word, the balance as a decimal string. Each places an order,
 * replays it, looks it up until it is final and reads the balance, and
 * returns what it read. The sources are written beside the generated types
 * and typechecked there, so they are kept as text here.
 */

/** What a client read, the same for every dialect. */
export interface ClientReading {
  readonly id: string;
  readonly replayedId: string;
  readonly replayedHeader: string | null;
  readonly status: string | number;
  readonly amount: string | number;
  readonly balance: string | number;
}

/** The module around a dialect's reads: `client`, `order`, `key` and `pause` are in scope. */
function clientModule(reads: string): string {
  return `import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

export async function exercise(baseUrl: string, token: string, reference: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });
  const order = { account: "0712000101", amount: 100, currency: "KES" as const, reference };
  const key = { header: { "Idempotency-Key": \`key-\${reference}\` } };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
${reads}
}
`;
}

/** Each example provider's client, by file name. */
export const CLIENT_SOURCES: Readonly<Record<string, string>> = {
  "airtime-harness.yaml": clientModule(`
  const placed = await client.POST("/v1/airtime", { body: order, params: key });
  if (placed.data === undefined) throw new Error(\`not placed: \${JSON.stringify(placed.error)}\`);
  const replay = await client.POST("/v1/airtime", { body: order, params: key });
  if (replay.data === undefined) throw new Error("not replayed");
  let found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  while (found.data !== undefined && found.data.status === 0) {
    await pause();
    found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  }
  if (found.data === undefined) throw new Error("not found");
  const balance = await client.GET("/v1/balance");
  if (balance.data === undefined) throw new Error("no balance");
  return {
    id: placed.data.id,
    replayedId: replay.data.id,
    replayedHeader: replay.response.headers.get("Idempotent-Replayed"),
    status: found.data.status,
    amount: found.data.amount,
    balance: balance.data.amount,
  };`),

  "enveloped-string-money.yaml": clientModule(`
  const placed = await client.POST("/v1/airtime", { body: order, params: key });
  if (placed.data === undefined) throw new Error(\`not placed: \${placed.error.error.code}\`);
  const replay = await client.POST("/v1/airtime", { body: order, params: key });
  if (replay.data === undefined) throw new Error("not replayed");
  let found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  while (found.data?.data.status === 0) {
    await pause();
    found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  }
  if (found.data === undefined) throw new Error(\`not found: \${found.error.error.code}\`);
  const balance = await client.GET("/v1/balance");
  if (balance.data === undefined || !balance.data.success) throw new Error("no balance");
  const available: string = balance.data.data.amount;
  return {
    id: placed.data.data.id,
    replayedId: replay.data.data.id,
    replayedHeader: replay.response.headers.get("Idempotent-Replayed"),
    status: found.data.data.status,
    amount: found.data.data.amount,
    balance: available,
  };`),

  "word-statuses-hmac.yaml": clientModule(`
  const placed = await client.POST("/v1/airtime", { body: order, params: key });
  // An insufficient balance is a 200 too: the failed order has no transactionId, and a fault beside it.
  if (placed.data === undefined || !("transactionId" in placed.data.result)) throw new Error("not placed");
  const replay = await client.POST("/v1/airtime", { body: order, params: key });
  if (replay.data === undefined || !("transactionId" in replay.data.result)) throw new Error("not replayed");
  let found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  while (found.data?.result.status === "PENDING") {
    await pause();
    found = await client.GET("/v1/airtime/{reference}", { params: { path: { reference } } });
  }
  if (found.data === undefined) throw new Error(\`not found: \${found.error.fault.detail.errorCode}\`);
  const balance = await client.GET("/v1/balance");
  if (balance.data === undefined) throw new Error("no balance");
  return {
    id: placed.data.result.transactionId,
    replayedId: replay.data.result.transactionId,
    replayedHeader: replay.response.headers.get("Idempotent-Replayed"),
    status: found.data.result.status,
    amount: found.data.result.amount,
    balance: balance.data.result.available,
  };`),
};
