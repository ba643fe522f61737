import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();

function oversizedFunction(lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `  total += ${i};`).join("\n");
  return `export function tooLong(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

async function ruleIdsFor(text: string, filePath: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

describe("the size rules npm run lint enforces", () => {
  it("refuses a function over 80 lines in src/, counting neither blanks nor comments", async () => {
    expect(await ruleIdsFor(oversizedFunction(85), "src/domain/planted.ts")).toContain("max-lines-per-function");
    const commented = oversizedFunction(70).replace("let total = 0;", `let total = 0;\n${"  // why\n".repeat(30)}`);
    expect(await ruleIdsFor(commented, "src/domain/planted.ts")).not.toContain("max-lines-per-function");
  });

  it("refuses a file over 800 lines of code in src/, and lets a whole component of 500 stand", async () => {
    const lines = (count: number) =>
      Array.from({ length: count }, (_, i) => `export const value${i} = ${i};`).join("\n") + "\n";
    expect(await ruleIdsFor(lines(801), "src/domain/planted.ts")).toContain("max-lines");
    expect(await ruleIdsFor(lines(500), "src/domain/planted.ts")).not.toContain("max-lines");
  });

  it("lets a declarative table run long", async () => {
    expect(await ruleIdsFor(oversizedFunction(85), "src/contract/routes/planted.ts")).not.toContain(
      "max-lines-per-function",
    );
  });
});

describe("the layering npm run lint enforces", () => {
  const importing = (path: string) => `import type { Planted } from "${path}";\nexport type Used = Planted;\n`;

  it.each([
    // The four that once passed: a feature into the simulator, the HTTP layer into the dashboard.
    ["src/webhooks/planted.ts", "../simulator/create-simulator.ts"],
    ["src/scenarios/planted.ts", "../simulator/default-plugins.ts"],
    ["src/dashboard/planted.ts", "../simulator/create-simulator.ts"],
    ["src/http/planted.ts", "../dashboard/dashboard-plugin.ts"],
    ["src/domain/planted.ts", "../http/journal.ts"],
    ["src/store/planted.ts", "../webhooks/ports.ts"],
    ["src/contract/routes/planted.ts", "../../domain/model.ts"],
    ["src/compare/planted.ts", "../cli/main.ts"],
    // Above the Redis adapters, only the backend seam reaches them.
    ["src/simulator/planted.ts", "../redis/redis-store.ts"],
    ["src/dashboard/planted.ts", "../redis/redis-store.ts"],
  ])("refuses %s importing %s, a layer above its own", async (file, path) => {
    expect(await ruleIdsFor(importing(path), file)).toContain("no-restricted-imports");
  });

  it.each([
    ["src/webhooks/planted.ts", "../domain/plugin-port.ts"],
    ["src/http/planted.ts", "../domain/plugin-port.ts"],
    ["src/simulator/backend.ts", "../redis/redis-store.ts"],
    ["src/simulator/planted.ts", "../dashboard/dashboard-plugin.ts"],
    ["src/harness/planted.ts", "../contract/duration.ts"],
  ])("lets %s import %s, a layer below", async (file, path) => {
    expect(await ruleIdsFor(importing(path), file)).not.toContain("no-restricted-imports");
  });

  it("keeps the domain free of HTTP frameworks", async () => {
    expect(await ruleIdsFor(importing("express"), "src/domain/planted.ts")).toContain("no-restricted-imports");
  });
});
