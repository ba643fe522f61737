/**
 * An inferred profile as a YAML file a person can review: each inferred
 * field carries a comment saying how it was found, and what could not be
 * inferred (or was set aside) is listed at the end. The file is validated
 * by the very loader `contract --provider` reads it with before it is
 * returned.
 */
import { Document, isCollection, isScalar } from "yaml";
import { parseProviderProfile } from "../contract/provider-profile/load.ts";
import type { InferredProfile } from "./infer-from-target.ts";

export function profileYaml(inferred: InferredProfile, header: string): string {
  const document = new Document(inferred.profile);
  for (const note of inferred.notes) {
    const node = document.getIn(note.path, true);
    if (isScalar(node)) node.comment = appended(node.comment, note.how);
    else if (isCollection(node)) node.commentBefore = appended(node.commentBefore, note.how);
  }
  document.commentBefore = ` ${header}`;
  const tail = [
    ...inferred.missing.map((what) => ` not inferred: ${what}`),
    ...(inferred.setAside.length === 0
      ? []
      : [` set aside, not order events: ${[...new Set(inferred.setAside)].join(", ")}`]),
  ];
  if (tail.length > 0) document.comment = tail.join("\n");
  const text = document.toString({ lineWidth: 0 });
  const check = parseProviderProfile(text);
  if (!check.ok) throw new Error(`the inferred profile does not validate: ${JSON.stringify(check.issues)}`);
  return text;
}

function appended(existing: string | null | undefined, how: string): string {
  return existing === undefined || existing === null || existing === "" ? ` ${how}` : `${existing}; ${how}`;
}
