/**
 * Plain `listen --provider FILE`: the receiver verifies the profile's own
 * signature scheme, dedupes on its delivery id, and prints each delivery's
 * reference and status as the dialect writes them.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { compileRenderer } from "../../src/contract/provider-profile/render.ts";
import { runCli } from "../support/processes.ts";

const FILE = "examples/providers/word-statuses-hmac.yaml";
// An HMAC key is whatever text the provider hands out.
const KEY = "word-statuses-hmac-key-42";

test("listen --provider verifies the dialect's HMAC, dedupes its delivery id and prints its words", async () => {
  const loaded = await loadProviderProfile(FILE);
  if (!loaded.ok) throw new Error("the example profile does not load");
  const renderer = compileRenderer(loaded.profile, { newUuid: randomUUID });
  const body = JSON.stringify(
    renderer.webhook({
      type: "airtime.status",
      id: "ord_1",
      reference: "R-dialect-1",
      status: 20,
      amount: 50,
      final: true,
    }),
  );
  const signed = renderer.signWebhook({
    id: "dlv_1",
    timestampSeconds: Math.floor(Date.now() / 1000),
    body,
    secrets: [KEY],
  });
  const listener = runCli(["listen", "--port", "0", "--provider", FILE, "--secret", KEY]);
  try {
    const started = await listener.waitFor(/listening on (http:\/\/\S+)/, 30_000);
    if (started.kind !== "matched") throw new Error(listener.output());
    const url = started.match[1] as string;
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    expect((await post(signed)).status).toBe(200);
    expect((await post(signed)).status).toBe(200);
    expect((await post({ ...signed, "x-signature": "sha256=00" })).status).toBe(400);
    const rejected = await listener.waitFor(/rejected dlv_1: X-Signature does not match/, 30_000);
    expect(rejected.kind, listener.output()).toBe("matched");
  } finally {
    await listener.stop();
  }
  const lines = listener.output().split("\n");
  // Printed once (the copy is a duplicate), with the word as sent and the table's name for it.
  expect(lines.filter((line) => /dlv_1 {2}R-dialect-1 {2}COMPLETED {2}Completed$/.test(line))).toHaveLength(1);
  expect(listener.output()).toMatch(/stopped after 1 delivery, 1 duplicate, 1 rejected/);
});

test("listen --provider with a Standard Webhooks profile still wants whsec_ secrets", async () => {
  const listener = runCli([
    "listen",
    "--port",
    "0",
    "--provider",
    "examples/providers/enveloped-string-money.yaml",
    "--secret",
    KEY,
  ]);
  expect(await listener.exited).toBe(2);
  expect(listener.output()).toMatch(/whsec_/);
});
