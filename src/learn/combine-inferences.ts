/**
 * `--from-target` with `--from-openapi`: the probe confirms or corrects the
 * document. What the probe found wins, field by field, and a field where
 * the two disagree says so; the document completes what no probe order
 * could show: the statuses the orders never reached, the error statuses
 * the probe could not provoke, and the domain.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { FieldNote } from "./inference.ts";
import type { InferredProfile } from "./infer-from-target.ts";

type Bodies = NonNullable<ProviderProfile["bodies"]>;

function mergedBodies(probed: Bodies, documented: Bodies, notes: FieldNote[]): Bodies {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const body of new Set([...Object.keys(documented), ...Object.keys(probed)])) {
    const fromProbe = (probed as Record<string, Record<string, unknown> | undefined>)[body] ?? {};
    const fromDocument = (documented as Record<string, Record<string, unknown> | undefined>)[body] ?? {};
    for (const [field, value] of Object.entries(fromProbe)) {
      const said = fromDocument[field];
      if (said === undefined) continue;
      const how = said === value ? "confirmed by the document" : `the probe corrected the document's ${String(said)}`;
      notes.push({ path: ["bodies", body, field], how });
    }
    merged[body] = { ...fromDocument, ...fromProbe };
  }
  return merged as Bodies;
}

export function combineInferences(probed: InferredProfile, documented: InferredProfile): InferredProfile {
  const notes: FieldNote[] = [...probed.notes];
  const profile: ProviderProfile = { ...documented.profile, ...probed.profile };
  profile.bodies = mergedBodies(probed.profile.bodies ?? {}, documented.profile.bodies ?? {}, notes);
  const seen = probed.profile.statuses?.table ?? [];
  const unseen = (documented.profile.statuses?.table ?? []).filter(
    (entry) => !seen.some((probedEntry) => probedEntry.word === entry.word || probedEntry.code === entry.code),
  );
  if (probed.profile.statuses !== undefined || documented.profile.statuses !== undefined) {
    profile.statuses = { ...documented.profile.statuses, ...probed.profile.statuses, table: [...seen, ...unseen] };
    for (const entry of unseen) {
      notes.push({
        path: ["statuses", "table"],
        how: `${entry.word ?? entry.code}: from the document, no probe order reached it`,
      });
    }
  }
  profile.http = { ...documented.profile.http, ...probed.profile.http };
  profile.errorCodes = { ...documented.profile.errorCodes, ...probed.profile.errorCodes };
  if (documented.profile.domain !== undefined) {
    profile.domain = documented.profile.domain;
    notes.push({ path: ["domain"], how: "the document's request schema" });
  }
  const completed = /no probe order reached one|^domain:/;
  return {
    profile,
    notes,
    missing: [
      ...probed.missing.filter((what) => !completed.test(what)),
      ...documented.missing.map((what) => `in the document, ${what}`),
    ],
    setAside: [...new Set([...probed.setAside, ...documented.setAside])],
  };
}
