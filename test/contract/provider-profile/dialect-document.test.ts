/**
 * The dialect's OpenAPI document (`spec --provider`) says what the dialect
 * does and nothing of ours: Redocly's recommended rules find nothing in it
 * for each example provider, the request keeps to the dialect's bounds, the
 * 200 declares `Idempotent-Replayed`, and its prose speaks of the dialect's
 * error body and signing rather than problem+json and Standard Webhooks.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, test } from "vitest";
import { dialectOpenApiDocument } from "../../../src/contract/openapi/dialect-document.ts";
import { loadProviderProfile } from "../../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../../src/contract/provider-profile/schema.ts";

const PROVIDERS = new URL("../../../examples/providers/", import.meta.url);
const EXAMPLES = readdirSync(PROVIDERS).filter((name) => name.endsWith(".yaml"));

async function load(name: string): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(fileURLToPath(new URL(name, PROVIDERS)));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

describe.each(EXAMPLES)("the document of %s", (name) => {
  test("Redocly's recommended rules: no error, no warning", async () => {
    const source = JSON.stringify(dialectOpenApiDocument(await load(name)), null, 2);
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: `${name}.openapi.json`, config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });
});

describe("the document of a dialect unlike ours (word statuses, HMAC, 10–5000 whole shillings)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read path by path
  let document: any;
  test("the request keeps to the dialect's amounts", async () => {
    document = dialectOpenApiDocument(await load("word-statuses-hmac.yaml"));
    const amount = document.components.schemas.SendAirtimeRequest.properties.amount;
    expect(amount).toMatchObject({ minimum: 10, maximum: 5000, multipleOf: 1 });
    expect(amount.description).toContain("whole shillings");
    const account = new RegExp(document.components.schemas.Account.pattern as string, "u");
    expect(["0712345678", "254712345678"].map((value) => account.test(value))).toEqual([true, true]);
    expect(["+254712345678", "712345678"].map((value) => account.test(value))).toEqual([false, false]);
  });

  test("the 200 declares Idempotent-Replayed, which a replay carries", () => {
    const ok = document.paths["/v1/airtime"].post.responses["200"];
    expect(Object.keys(ok.headers)).toContain("Idempotent-Replayed");
  });

  test("its prose speaks of the dialect's error body and signing, never of ours", () => {
    const text = JSON.stringify(document);
    for (const ours of [
      "problem+json",
      "standardwebhooks",
      "webhook-signature",
      '"wallets"',
      "RFC 9457",
      "`history`",
    ]) {
      expect(text).not.toContain(ours);
    }
    expect(document.info.description).toContain("/fault/detail/errorCode");
    expect(document.webhooks.airtimeStatus.post.description).toContain("X-Signature");
    expect(document.info.description).toContain("`408` `TIMEOUT` Timeout (failed)");
  });
});
