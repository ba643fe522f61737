/**
 * The lint rule that keeps defaults in the settings tables: a fallback on
 * an options field, or on options another object holds, is refused in every
 * folder of `src/`, and allowed in a normaliser (`*-settings.ts`), on local
 * values and on the parts of a function's input.
 */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();

async function messagesFor(text: string, filePath: string) {
  const [result] = await eslint.lintText(text, { filePath });
  return result?.messages ?? [];
}

async function ruleIdsFor(text: string, filePath: string): Promise<(string | null)[]> {
  return (await messagesFor(text, filePath)).map((message) => message.ruleId);
}

const RULE_MESSAGE =
  "Give this default in its settings table (*-settings.ts, or a …Settings function), not at its use.";

const fallback = (expression: string) =>
  `export function planted(options: { a?: number; b?: { c?: number } }): number {\n  return ${expression};\n}\n`;

/** Every folder of `src/`: the commands' and the simulator's alike. */
const FOLDERS = [
  "src/harness",
  "src/learn",
  "src/webhooks",
  "src/compare",
  "src/handler-check",
  "src/cli",
  "src/simulator",
  "src/redis",
  "src/scenarios",
  "src/contract",
  "src/domain",
  "src/http",
  "src/time",
  "src/store",
  "src/dashboard",
];
const FALLBACKS = ["options.a ?? 1", "options.b?.c ?? 2", "(options.b ?? {}).c ?? 3"];

describe("no options.x ?? outside the normalisers", () => {
  const planted = FOLDERS.flatMap((folder) => FALLBACKS.map((expression) => [expression, folder] as const));
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

  it("says where the default belongs", async () => {
    const messages = await messagesFor(fallback("options.a ?? 1"), "src/redis/planted.ts");
    expect(messages.map((message) => message.message)).toEqual([RULE_MESSAGE]);
  });

  it.each(["src/compare/compare-settings.ts", "src/simulator/simulator-settings.ts", "src/redis/redis-settings.ts"])(
    "allows it in a settings normaliser, %s",
    async (file) => {
      expect(await messagesFor(fallback("options.a ?? 1"), file)).toEqual([]);
    },
  );

  it("allows it in a component's own …Settings function, and nowhere else in its file", async () => {
    const component =
      "export function clockSettings(options: { a?: number }) {\n  return Object.freeze({ a: options.a ?? 1 });\n}\n" +
      "export function tick(options: { a?: number }): number {\n  return options.a ?? 2;\n}\n";
    const messages = await messagesFor(component, "src/time/planted.ts");
    expect(messages.map((message) => [message.line, message.message])).toEqual([[5, RULE_MESSAGE]]);
  });

  it("leaves a fallback on a local value alone", async () => {
    const local = `export function planted(found: number | undefined): number {\n  return found ?? 0;\n}\n`;
    expect(await ruleIdsFor(local, "src/compare/planted.ts")).not.toContain("no-restricted-syntax");
  });
});
