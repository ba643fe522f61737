/**
 * What the outside-tool proofs share: each file of `examples/providers/`
 * loaded, its dialect's OpenAPI document (`spec --provider`) written to a
 * file as the tools take it, and `serve --provider` started as a deployment
 * is — a real port, a real clock with fast finals (by default a quarter of
 * them failures), one customer's token and a second customer's.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dialectOpenApiDocument } from "../../src/contract/openapi/dialect-document.ts";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const EXAMPLES = new URL("../../examples/providers/", import.meta.url);

/** The file names of `examples/providers/`. */
export const EXAMPLE_PROVIDERS = readdirSync(EXAMPLES).filter((name) => name.endsWith(".yaml"));

export async function exampleProfile(name: string): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(fileURLToPath(new URL(name, EXAMPLES)));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/** The dialect's document as `spec --provider P --out FILE` writes it (JSON). */
export function writeDialectDocument(provider: ProviderProfile, folder?: string): string {
  const file = join(folder ?? mkdtempSync(join(tmpdir(), "dialect-doc-")), "openapi.json");
  writeFileSync(file, JSON.stringify(dialectOpenApiDocument(provider), null, 2));
  return file;
}

export interface DialectTarget {
  readonly sim: Simulator;
  readonly url: string;
  readonly token: string;
  readonly otherToken: string;
  readonly secret: string;
}

/**
 * `serve --provider` on a free port. Webhooks go to `webhookUrl` when one is
 * given, signed with `secret` (a `whsec_` key, which HMAC profiles take as text).
 */
export async function startDialectTarget(
  provider: ProviderProfile,
  options: { readonly seed: number; readonly webhookUrl?: string; readonly failureRate?: number },
): Promise<DialectTarget> {
  const token = `dialect-${randomBytes(6).toString("hex")}`;
  const otherToken = `dialect-other-${randomBytes(6).toString("hex")}`;
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const webhook = options.webhookUrl === undefined ? {} : { webhook: { url: options.webhookUrl, secrets: [secret] } };
  const sim = await createSimulator({
    provider,
    clock: "real",
    seed: options.seed,
    timing: { kind: "uniform", minMs: 50, maxMs: 150 },
    failureRate: options.failureRate ?? 0.25,
    demo: false,
    scenarios: false,
    customers: [
      { id: "dialect", token, balance: 1_000_000, ...webhook },
      { id: "dialect-other", token: otherToken, balance: 1_000 },
    ],
    webhooks: { schedule: "0,100ms,500ms", jitter: 0 },
  });
  const url = await sim.listen(0, "127.0.0.1");
  return { sim, url, token, otherToken, secret };
}
