import { request } from "node:http";
import { fc } from "@fast-check/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator, SimulatorOptions } from "../../src/index.ts";
import { admin, balanceOf, DEMO_TOKEN, startSimulatorOnPort } from "../support/http.ts";
import { type FuzzReply, type FuzzRequest, requestArb, violation } from "./fuzz-requests.ts";

function sendRaw(base: string, req: FuzzRequest): Promise<FuzzReply | "unsendable"> {
  return new Promise((resolve, reject) => {
    let client: ReturnType<typeof request>;
    try {
      // Bodies are framed with Content-Length: the fuzz targets the API, not node's HTTP parser.
      const framing = req.body === undefined ? {} : { "content-length": String(Buffer.byteLength(req.body)) };
      client = request(`${base}${req.path}`, { method: req.method, headers: { ...req.headers, ...framing } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", text }),
        );
      });
    } catch {
      // The client refused to build the request (invalid header characters): nothing reaches the server.
      resolve("unsendable");
      return;
    }
    client.on("error", reject);
    client.end(req.body);
  });
}

function fuzzProperty(sim: Simulator, statuses = new Map<number, number>()) {
  return fc.asyncProperty(requestArb(sim.adminToken), async (req) => {
    const reply = await sendRaw(sim.url, req);
    if (reply === "unsendable") return true;
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    const problem = violation(req, reply);
    if (problem !== undefined) throw new Error(`${req.method} ${req.path}: ${problem}`);
    return true;
  });
}

const FUZZ_OPTIONS: SimulatorOptions = { demo: { token: DEMO_TOKEN, balance: 10_000_000 } };

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulatorOnPort(FUZZ_OPTIONS);
  await sim.customers.updateCustomer("demo", { wallets: [{ shortcode: "600100", balance: 1_000_000 }] });
});
afterAll(() => sim.close());

test("fuzz of the public and admin APIs: only 4xx problem+json, never a 5xx, and the server still answers", async () => {
  const statuses = new Map<number, number>();
  const result = await fc.check(fuzzProperty(sim, statuses), { numRuns: 400 });
  expect(result.failed, fc.defaultReportMessage(result)).toBe(false);
  // The generated traffic reaches every layer: success, the domain's refusals, and each pipeline guard.
  for (const status of [200, 400, 401, 404, 405, 409, 415]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
  expect(await balanceOf(sim)).toBeGreaterThan(0);
  expect((await admin(sim, "/clock")).status).toBe(200);
});

test("the fuzz finds a counterexample in a deliberately broken simulator", async () => {
  // A plugin that throws (→ 500) on one kind of otherwise valid order.
  const broken = await startSimulatorOnPort({
    ...FUZZ_OPTIONS,
    plugins: [
      () => ({
        name: "broken",
        scenarios: {
          async evaluate(facts) {
            if (facts.amountCents % 300 === 0) throw new Error("boom");
            return { fired: [] };
          },
        },
      }),
    ],
    onError: () => {},
  });
  try {
    const result = await fc.check(fuzzProperty(broken), { numRuns: 400, seed: 7 });
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/5xx: 500/);
    expect(result.counterexample?.[0]).toMatchObject({ method: "POST", path: "/v1/airtime" });
  } finally {
    await broken.close();
  }
});
