/**
 * Prism's validating proxy agrees with every example provider's dialect:
 * `prism proxy <spec --provider P> <serve --provider P>` between a
 * `contract --profile interface --provider P` run and the simulator. Prism
 * checks each request and answer against the dialect's document and names
 * what breaks it in the `sl-violations` header, which a recorder in front of
 * Prism collects. Without `--errors` Prism forwards every request, the
 * contract's deliberately invalid ones too, so the run is the whole contract.
 *
 * A violation is an answer that breaks the document, a request the simulator
 * took (2xx) that the document refuses or has no operation for. Requests
 * the document refuses and the simulator refused too (an invalid order, a
 * wrong method, an unknown path) are the contract's negative cases, where
 * both agree; they are counted apart.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { freePort } from "../../src/harness/child-process.ts";
import { startPrismProcess } from "../../src/harness/prism.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { PACKAGE_ROOT } from "../../src/package-root.ts";
import { startRewritingProxy } from "../harness/rewriting-proxy.ts";
import { EXAMPLE_PROVIDERS, exampleProfile, startDialectTarget, writeDialectDocument } from "./dialect-targets.ts";

/** Accounts every example's domain accepts (local and international forms, three operators). */
const ACCOUNTS = ["0712000101", "254733000202", "0770000303"];
const PRISM = resolve(PACKAGE_ROOT, "node_modules/.bin/prism");

interface PrismViolation {
  readonly location: readonly string[];
  readonly severity: string;
  readonly message: string;
}

interface Tally {
  proxied: number;
  /** Answers, accepted requests and accepted unrouted requests Prism objected to, as `METHOD path status: what`. */
  readonly violations: string[];
  /** Requests the document refuses that the simulator refused as well. */
  refusedByBoth: number;
  /** Requests for no operation of the document (an unknown path, a wrong method), which the simulator refused. */
  outsideTheDocument: number;
}

const UNROUTED = "Selected route not found";

function record(tally: Tally, request: string, status: number, header: string | undefined): void {
  tally.proxied += 1;
  if (header === undefined) return;
  const found = JSON.parse(header) as PrismViolation[];
  const accepted = status >= 200 && status < 300;
  const counted = found.filter((violation) => violation.location[0] === "response" || accepted);
  for (const violation of counted) {
    tally.violations.push(`${request} ${status}: ${violation.location.join(".")} ${violation.message}`);
  }
  if (counted.length > 0) return;
  if (found.some((violation) => violation.message === UNROUTED)) tally.outsideTheDocument += 1;
  else tally.refusedByBoth += 1;
}

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** `prism proxy <the dialect's document> <upstream>`, with a recorder in front of it tallying what Prism says. */
async function validatingProxy(documentOf: ProviderProfile, upstream: string): Promise<Tally & { url: string }> {
  const prism = await startPrismProcess(PRISM, ["proxy", writeDialectDocument(documentOf), upstream]);
  closers.push(prism.close);
  const tally: Tally = { proxied: 0, violations: [], refusedByBoth: 0, outsideTheDocument: 0 };
  const recorder = await startRewritingProxy(prism.url, async (request, forward) => {
    const answer = await forward();
    record(tally, `${request.method} ${request.path}`, answer.status, answer.headers["sl-violations"]);
    return answer;
  });
  closers.push(recorder.close);
  return Object.assign(tally, { url: recorder.url });
}

const figures: string[] = [];
afterAll(() => console.log(`Prism's validating proxy, one contract run per provider:\n${figures.join("\n")}`));

test.concurrent.each(EXAMPLE_PROVIDERS)(
  "Prism's proxy with the dialect's document finds no violation in a contract run against serve --provider %s",
  async (name) => {
    expect(existsSync(PRISM)).toBe(true);
    const provider = await exampleProfile(name);
    const receiverPort = await freePort();
    const target = await startDialectTarget(provider, {
      seed: 4,
      webhookUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
    });
    closers.push(() => target.sim.close());
    const tally = await validatingProxy(provider, target.url);
    const report = await runContract({
      target: tally.url,
      token: target.token,
      otherToken: target.otherToken,
      accounts: ACCOUNTS,
      webhookListen: `127.0.0.1:${receiverPort}`,
      webhookSecret: target.secret,
      profile: "interface",
      provider,
      seed: 4,
      runs: 10,
      finalTimeoutMs: 5000,
      webhookTimeoutMs: 1000,
    });
    figures.push(
      `${name}: ${tally.proxied} requests proxied, ${tally.violations.length} violations ` +
        `(refused by the document and the simulator alike: ${tally.refusedByBoth} invalid requests, ` +
        `${tally.outsideTheDocument} for no operation of the document)`,
    );
    expect(report.errors).toEqual([]);
    expect(tally.violations).toEqual([]);
    // The run went through Prism: orders, replays, lookups, balances and refusals.
    expect(tally.proxied).toBeGreaterThan(50);
    expect(tally.refusedByBoth).toBeGreaterThan(0);
    const failed = report.checks.flatMap((check) => (check.status === "failed" ? [check.name] : []));
    expect(failed).toEqual([]);
  },
  300_000,
);

test("the same proxy finds the violations when the document is another dialect's", async () => {
  const served = await exampleProfile("word-statuses-hmac.yaml");
  const target = await startDialectTarget(served, { seed: 5 });
  closers.push(() => target.sim.close());
  const tally = await validatingProxy(await exampleProfile("enveloped-string-money.yaml"), target.url);
  const headers = { authorization: `Bearer ${target.token}`, "content-type": "application/json" };
  const order = { reference: "PRISM-1", account: "0712000101", amount: 100, service: "safaricom", currency: "KES" };
  const placed = await fetch(`${tally.url}/v1/airtime`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": "prism-key-1" },
    body: JSON.stringify(order),
  });
  expect(placed.status).toBe(200);
  await (await fetch(`${tally.url}/v1/balance`, { headers })).text();
  expect(tally.proxied).toBe(2);
  expect(tally.violations.join("\n")).toMatch(/POST \/v1\/airtime 200: response\.body .*data/);
  expect(tally.violations.join("\n")).toMatch(/GET \/v1\/balance 200: response\.body/);
});
