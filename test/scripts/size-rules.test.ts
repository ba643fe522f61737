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

  it("refuses a file over 400 lines of code in src/", async () => {
    const text = Array.from({ length: 401 }, (_, i) => `export const value${i} = ${i};`).join("\n") + "\n";
    expect(await ruleIdsFor(text, "src/domain/planted.ts")).toContain("max-lines");
  });

  it("lets a declarative table run long", async () => {
    expect(await ruleIdsFor(oversizedFunction(85), "src/contract/routes/planted.ts")).not.toContain(
      "max-lines-per-function",
    );
  });
});
