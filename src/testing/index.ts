/**
 * `airtime-harness/testing`: a simulator for an integrator's test suite, with
 * any test runner (node:test, jest, mocha, vitest without the fixture). Kept
 * out of the main entry, whose names are the product's stable surface.
 *
 * @example
 * import { startTestSimulator } from "airtime-harness/testing";
 */
export { startTestSimulator } from "./test-simulator.ts";
export type { ExpectWebhookOptions, TestSimulator, TestSimulatorOptions } from "./test-simulator.ts";
export type { ClientResponse, SendAirtimeCallOptions, TestClient } from "./test-client.ts";
// What a file written by `contract --emit-test` calls: a shrunk counterexample replayed as a test.
export { replayFailure } from "../harness/replay-failure.ts";
export type { ReplayOutcome } from "../harness/replay-failure.ts";
