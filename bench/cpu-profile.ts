/** A `node --cpu-prof` profile, as far as the profile scripts read it. */
import { readFileSync } from "node:fs";

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export function readProfile(path: string): Profile {
  return JSON.parse(readFileSync(path, "utf8")) as Profile;
}

/** Each node's parent id. */
export function parentsOf(profile: Profile): Map<number, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return parent;
}

/** µs per sample: the profile's length over its samples. */
export function sampleIntervalUs(profile: Profile): number {
  return (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
}
