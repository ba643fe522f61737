/**
 * `profile init --from-openapi` on each test provider's OpenAPI document,
 * written as that provider publishes it, gives the bodies, statuses, errors
 * and webhook rules the probe finds against the running provider, and the
 * domain the provider enforces; and it names the statuses no probe order
 * reached.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { startLearnKit, type LearnKit } from "./learn-kit.ts";
import type { Dialect } from "./providers/dialect.ts";
import { JAMBO } from "./providers/jambo-dialect.ts";
import { SIMU } from "./providers/simu-dialect.ts";

const DOCUMENTS: ReadonlyMap<Dialect, string> = new Map([
  [JAMBO, fileURLToPath(new URL("./providers/jambo.openapi.yaml", import.meta.url))],
  [SIMU, fileURLToPath(new URL("./providers/simu.openapi.yaml", import.meta.url))],
]);

async function written(kit: LearnKit, args: string[], name: string): Promise<ProviderProfile> {
  const file = join(kit.dir, name);
  const run = await kit.cli(["init", ...args, file]);
  expect(run.code, run.printed.join("\n")).toBe(0);
  const loaded = parseProviderProfile(await readFile(file, "utf8"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/** A profile's bodies without what the probe alone records: the fields beyond the pointers, from the answers it saw. */
function pointersOf(bodies: ProviderProfile["bodies"]): object {
  return Object.fromEntries(
    Object.entries(bodies ?? {}).map(([kind, body]) => {
      const { passthrough: _kept, extra: _added, ...pointers } = body as Record<string, unknown>;
      return [kind, pointers];
    }),
  );
}

describe.each([JAMBO, SIMU])("$name's OpenAPI document", (dialect) => {
  test("gives the probe's bodies, statuses, errors and webhook rules, and the domain", async () => {
    const kit = await startLearnKit(dialect);
    try {
      const probed = await written(kit, kit.fromTargetArgs(), "probed.yaml");
      const documented = await written(kit, ["--from-openapi", DOCUMENTS.get(dialect) as string], "documented.yaml");
      expect(documented.bodies).toMatchObject(pointersOf(probed.bodies));
      expect(documented.money).toBe(probed.money);
      expect(documented.statuses?.values).toBe(probed.statuses?.values);
      const seen = (probed.statuses?.table ?? []).map(({ code, word, class: cls }) =>
        expect.objectContaining({ code, word, class: cls }),
      );
      expect(seen.length).toBeGreaterThan(1);
      expect(documented.statuses?.table).toEqual(expect.arrayContaining(seen));
      // Every status the provider writes, reached by the probe or not.
      expect(new Set(documented.statuses?.table?.map((entry) => entry.word))).toEqual(
        new Set(
          ["PENDING", "SUCCESS", "FAILED", "TIMEOUT", "REVERSED"].map((status) => dialect.word(status as "PENDING")),
        ),
      );
      expect(documented.http).toMatchObject(probed.http as object);
      expect(documented.errorCodes).toEqual(probed.errorCodes);
      expect(documented.webhooks).toEqual(probed.webhooks);
      const { domain } = dialect;
      expect(documented.domain).toMatchObject({
        amount: { min: domain.minKes, max: domain.maxKes, decimals: domain.decimals },
        reference: { pattern: domain.reference.source },
        services: domain.services,
        currency: "KES",
      });
    } finally {
      await kit.close();
    }
  }, 120_000);

  test("with --from-target, the probe's findings stand and the document completes the statuses and the domain", async () => {
    const kit = await startLearnKit(dialect, { failureRate: 0, reversalRate: 0 });
    try {
      const document = DOCUMENTS.get(dialect) as string;
      const probed = await written(kit, kit.fromTargetArgs(), "probed.yaml");
      const combined = await written(kit, [...kit.fromTargetArgs(), "--from-openapi", document], "combined.yaml");
      expect(combined.bodies).toMatchObject(probed.bodies as object);
      expect(combined.webhooks).toEqual(probed.webhooks);
      // Orders that always succeed reach no failed or reversed status: those come from the document.
      expect(probed.statuses?.table?.map((entry) => entry.class).sort()).toEqual(["pending", "success"]);
      expect(new Set(combined.statuses?.table?.map((entry) => entry.class))).toEqual(
        new Set(["pending", "success", "failed", "reversed"]),
      );
      expect(combined.domain?.amount).toEqual({
        min: dialect.domain.minKes,
        max: dialect.domain.maxKes,
        decimals: dialect.domain.decimals,
      });
    } finally {
      await kit.close();
    }
  }, 120_000);
});
