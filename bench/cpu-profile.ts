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

/**
 * The busy samples counted per bucket (`bucketOf` gives undefined for a
 * sample left out, idle ones included), as a share of them times `share`,
 * or as µs per request when `requests` is given.
 */
export function costByBucket(
  profile: Profile,
  bucketOf: (id: number) => string | undefined,
  requests: number | undefined,
  share = 1,
): Map<string, number> {
  const counts = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const bucket = bucketOf(id);
    if (bucket === undefined) continue;
    busy++;
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  const scale = requests === undefined ? share / busy : sampleIntervalUs(profile) / requests;
  return new Map([...counts].map(([bucket, count]) => [bucket, count * scale]));
}

/** µs per sample: the profile's length over its samples. */
export function sampleIntervalUs(profile: Profile): number {
  return (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
}
