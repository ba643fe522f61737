/**
 * The check behind `npm run lint:members`: a port member nothing uses is
 * reported, whether the port's adapters implement it or not, and a member
 * read through a call, a property or a destructuring is not.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { findUnusedMembers } from "../../scripts/check-unused-members.ts";

const dir = mkdtempSync(join(tmpdir(), "unused-members-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(files: Record<string, string>): string[] {
  return Object.entries(files).map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}

const PORT = `
export interface Port {
  called(): number;
  readonly read: boolean;
  destructured(): void;
  planted(): void;
}
export interface Wide extends Port {
  extra(): void;
}
`;

const ADAPTER = `
import type { Port } from "./port.ts";
// Implementing a member is not using it.
export const adapter: Port = {
  called: () => 1,
  read: true,
  destructured() {},
  planted() {},
};
`;

const USER = `
import type { Port, Wide } from "./port.ts";
export function use(port: Port, wide: Wide): number {
  const { destructured } = port;
  destructured();
  return wide.called() + (port.read ? 1 : 0);
}
`;

it("reports a planted member that only an adapter implements, and not the members code reads", () => {
  const files = project({ "port.ts": PORT, "adapter.ts": ADAPTER, "user.ts": USER });
  const unused = findUnusedMembers(files, [{ file: join(dir, "port.ts"), interfaces: ["Port", "Wide"] }]);
  expect(unused).toEqual(["Port.planted", "Wide.extra"]);
});

it("finds nothing to report once the planted member is used", () => {
  const files = project({
    "port.ts": PORT,
    "adapter.ts": ADAPTER,
    "user.ts": `${USER}\nexport const plant = (port: Port, wide: Wide) => { port.planted(); wide.extra(); };\n`,
  });
  expect(findUnusedMembers(files, [{ file: join(dir, "port.ts"), interfaces: ["Port", "Wide"] }])).toEqual([]);
});
