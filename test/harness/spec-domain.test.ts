/**
 * `--spec FILE` fills a profile's missing `domain` from the target's own
 * OpenAPI document: read from the foreign provider's document (with $refs),
 * it equals the domain its hand-written profile states, and a run against
 * that provider whose profile leaves the domain out draws its orders inside
 * the domain once the document is given.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { domainFromSpec, domainFromSpecFile } from "../../src/harness/spec-domain.ts";
import { interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

const SPEC = fileURLToPath(new URL("./foreign/foreign-openapi.yaml", import.meta.url));

async function foreignProfile(withDomain: boolean) {
  const text = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");
  const loaded = parseProviderProfile(withDomain ? text : text.replace(/^domain:\n(?: {2}.*\n)+/m, ""));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

test("the foreign provider's document gives the domain its profile states", async () => {
  expect((await foreignProfile(false)).domain).toBeUndefined();
  expect(await domainFromSpecFile(SPEC)).toEqual((await foreignProfile(true)).domain);
});

test("a document that constrains nothing gives no domain; two decimals read as multipleOf 0.01", () => {
  expect(domainFromSpec({ openapi: "3.1.0", paths: {} })).toBeUndefined();
  const document = {
    paths: {
      "/api/v1/airtime": {
        post: {
          requestBody: {
            content: {
              "application/json": {
                schema: { properties: { amount: { type: "number", multipleOf: 0.01, exclusiveMinimum: 5 } } },
              },
            },
          },
        },
      },
    },
  };
  expect(domainFromSpec(document)).toEqual({ amount: { min: 5, decimals: 2 } });
});

async function refusedOrders(specFile: string | undefined): Promise<{ refused: number; failures: string[] }> {
  const target = await startForeignTarget({ finalDelayMs: { min: 20, max: 60 } });
  try {
    const report = await runContract({
      ...interfaceRunAgainst(target),
      provider: await foreignProfile(false),
      properties: ["model"],
      seed: 11,
      runs: 6,
      ...(specFile === undefined ? {} : { specFile }),
    });
    const failures = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
    return { refused: target.refusedOrders(), failures };
  } finally {
    await target.close();
  }
}

test("with the document, a profile without a domain sends only orders the provider accepts", async () => {
  const withSpec = await refusedOrders(SPEC);
  expect(withSpec.failures).toEqual([]);
  expect(withSpec.refused).toBe(0);
  // Our spec's domain instead: decimal amounts and long references the provider refuses.
  expect((await refusedOrders(undefined)).refused).toBeGreaterThan(0);
}, 180_000);
