/**
 * Every planted defect of the foreign provider is real and visible over raw
 * HTTP, and the correct provider shows none of them: the catalogue the
 * contract harness is judged against holds no defect that cannot be seen.
 */
import { afterEach, expect, test } from "vitest";
import { DEFECT_DEMOS } from "./defect-demos.ts";
import { FOREIGN_DEFECTS } from "./defects.ts";
import { startKit, type Kit } from "./foreign-client.ts";

const running: Kit[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((kit) => kit.close()));
});

test("the catalogue holds at least 15 distinct defects", () => {
  expect(new Set(FOREIGN_DEFECTS.map((entry) => entry.name)).size).toBe(FOREIGN_DEFECTS.length);
  expect(FOREIGN_DEFECTS.length).toBeGreaterThanOrEqual(15);
});

test.each(FOREIGN_DEFECTS)("$name ($rule): visible over HTTP, absent from the correct provider", async (entry) => {
  const demo: { options?: object; misbehaves: (kit: Kit) => Promise<boolean> } = DEFECT_DEMOS[entry.name];
  const correct = await startKit(demo.options);
  const broken = await startKit({ ...demo.options, defect: entry.name });
  running.push(correct, broken);
  expect(await demo.misbehaves(correct)).toBe(false);
  expect(await demo.misbehaves(broken)).toBe(true);
});
