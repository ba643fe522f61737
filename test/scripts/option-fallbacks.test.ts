/**
 * The lint rule that keeps defaults in each command's settings table: a
 * fallback on an options field, or on options another object holds, is
 * refused in a covered folder, and allowed in its normaliser, on local
 * values and on the parts of a function's input.
 */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();

async function ruleIdsFor(text: string, filePath: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

const fallback = (expression: string) =>
  `export function planted(options: { a?: number; b?: { c?: number } }): number {\n  return ${expression};\n}\n`;

/** The folders whose options are normalised once; the rule holds in each. */
const CONVERTED = ["src/harness", "src/learn", "src/webhooks", "src/compare", "src/handler-check", "src/cli"];
const FALLBACKS = ["options.a ?? 1", "options.b?.c ?? 2", "(options.b ?? {}).c ?? 3"];

describe("no options.x ?? outside the normalisers", () => {
  const planted = CONVERTED.flatMap((folder) => FALLBACKS.map((expression) => [expression, folder] as const));
  it.each(planted)("refuses %s in %s/", async (expression, folder) => {
    const ids = await ruleIdsFor(fallback(expression), `${folder}/planted.ts`);
    expect(ids).toContain("no-restricted-syntax");
  });

  it.each(["plan.settings.a ?? 4", "plan.options?.a ?? 5", "this.config.a ?? 6"])(
    "refuses %s: options another object holds",
    async (expression) => {
      const held = `export const planted = { run(plan: Plan): number {\n  return ${expression};\n} };\n`;
      expect(await ruleIdsFor(held, "src/harness/planted.ts")).toContain("no-restricted-syntax");
    },
  );

  it("leaves the parts of a function's input alone", async () => {
    const parts = `export function planted(input: { property: { lanes?: number } }): number {\n  return input.property.lanes ?? 1;\n}\n`;
    expect(await ruleIdsFor(parts, "src/harness/planted.ts")).not.toContain("no-restricted-syntax");
  });

  it("allows it in a command's settings normaliser", async () => {
    expect(await ruleIdsFor(fallback("options.a ?? 1"), "src/compare/compare-settings.ts")).not.toContain(
      "no-restricted-syntax",
    );
  });

  it("leaves a fallback on a local value alone", async () => {
    const local = `export function planted(found: number | undefined): number {\n  return found ?? 0;\n}\n`;
    expect(await ruleIdsFor(local, "src/compare/planted.ts")).not.toContain("no-restricted-syntax");
  });
});
