// simulator.test.js
// The simulator in a container for one test file, through Testcontainers:
// started on a free port, awaited on its health route, on a virtual clock
// the test advances, and removed at the end.
import { GenericContainer, Wait } from "testcontainers";
import { afterAll, beforeAll, expect, test } from "vitest";

const IMAGE = process.env.AIRTIME_HARNESS_IMAGE ?? "ghcr.io/airtime-harness/airtime-harness:0.1.0";
const ADMIN_TOKEN = "admin-token-123456";
const DEMO_TOKEN = "demo-token-123";

let simulator;
let baseUrl;

beforeAll(async () => {
  simulator = await new GenericContainer(IMAGE)
    .withEnvironment({
      AIRTIME_SIM_ADMIN_TOKEN: ADMIN_TOKEN,
      AIRTIME_SIM_DEMO_TOKEN: DEMO_TOKEN,
      AIRTIME_SIM_CLOCK: "virtual",
    })
    .withExposedPorts(4010)
    .withWaitStrategy(Wait.forHttp("/", 4010))
    .start();
  baseUrl = `http://${simulator.getHost()}:${simulator.getMappedPort(4010)}`;
}, 120_000);

afterAll(async () => {
  await simulator?.stop();
});

function call(path, token, init = {}) {
  return fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers },
  });
}

test("an order is pending until the clock moves, then final", async () => {
  const placed = await call("/v1/airtime", DEMO_TOKEN, {
    method: "POST",
    headers: { "Idempotency-Key": "5b2f6c1e-0d7a-4c1b-9a57-2f1d8b7e4a10" },
    body: JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference: "order-1001" }),
  });
  expect(await placed.json()).toMatchObject({ reference: "order-1001", status: 0 });

  await call("/_sim/clock/advance", ADMIN_TOKEN, { method: "POST", body: JSON.stringify({ ms: 2000 }) });

  const found = await call("/v1/airtime/order-1001", DEMO_TOKEN);
  expect(await found.json()).toMatchObject({ reference: "order-1001", status: 20, message: "Success" });
});
