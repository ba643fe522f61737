/**
 * `airtime-harness spec`: our spec's document unchanged without a profile;
 * with `--provider`, the dialect's, which a simulator serving that profile
 * also answers at /openapi.json.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { spec } from "../../src/cli/spec.ts";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { send, startSimulator } from "../support/http.ts";

const WORDS = fileURLToPath(new URL("../../examples/providers/word-statuses-hmac.yaml", import.meta.url));

async function specTo(args: string[]): Promise<Record<string, unknown>> {
  const out = join(mkdtempSync(join(tmpdir(), "spec-cli-")), "openapi.yaml");
  expect(await spec([...args, "--out", out])).toBe(0);
  return parse(readFileSync(out, "utf8")) as Record<string, unknown>;
}

test("without a profile it is spec/openapi.yaml", async () => {
  const committed: unknown = parse(readFileSync(new URL("../../spec/openapi.yaml", import.meta.url), "utf8"));
  expect(await specTo([])).toEqual(committed);
});

test("with --provider it is the dialect's document, the one /openapi.json serves", async () => {
  const document = (await specTo(["--provider", WORDS])) as {
    paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, unknown> }> }>>;
    webhooks: { airtimeStatus: { post: { parameters: { name: string }[] } } };
  };
  const send200 = document.paths["/v1/airtime"]?.post?.responses["200"];
  // 200 answers the order or the failed order without id (§7), which closed schemas keep apart.
  expect(JSON.stringify(send200)).toContain("anyOf");
  expect(Object.keys(document.paths["/v1/airtime/{reference}"]?.get?.responses ?? {})).toContain("404");
  expect(document.webhooks.airtimeStatus.post.parameters.map((p) => p.name)).toEqual([
    "X-Delivery-Id",
    "X-Signature",
    "X-Timestamp",
  ]);
  const loaded = await loadProviderProfile(WORDS);
  if (!loaded.ok) throw new Error("the example must load");
  const sim = await startSimulator({ provider: loaded.profile });
  try {
    const served = await send(sim, "/openapi.json");
    expect(served.status).toBe(200);
    expect(served.body).toEqual(document);
  } finally {
    await sim.close();
  }
});

test("a bad profile exits 2", async () => {
  expect(await spec(["--provider", join(tmpdir(), "no-such-profile.yaml")])).toBe(2);
});
