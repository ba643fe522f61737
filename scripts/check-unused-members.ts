/**
 * Fails on a port method nothing in `src/` uses. knip finds unused exports,
 * not unused members of an exported interface: a port can keep methods that
 * only its adapters implement and only tests call, each one more thing every
 * adapter must write and keep right. A member counts as used where code in
 * the checked files reads it through the interface (a call, a property read,
 * a destructuring); implementing it, or declaring it again, does not count.
 *
 * Run with `npx tsx scripts/check-unused-members.ts` (part of `npm run lint`).
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

/** Interfaces whose every member must have a user, by the file that declares them. */
export interface CheckedInterfaces {
  readonly file: string;
  readonly interfaces: readonly string[];
}

/** The ports adapters implement: a member here is work for every adapter. */
const PORTS: readonly CheckedInterfaces[] = [
  { file: "src/domain/ports.ts", interfaces: ["Store", "Scheduler", "Clock", "Ids", "Random", "JobPlacement"] },
  { file: "src/domain/scenario-engine.ts", interfaces: ["SharedAttemptCounters"] },
  { file: "src/webhooks/ports.ts", interfaces: ["DeliveryStore"] },
];

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  types: ["node"],
};

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Where a name is read rather than declared or implemented: `store.getOrder(…)`, `const { clock } = deps`. */
function isUse(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === identifier;
  return ts.isBindingElement(parent) && ts.isObjectBindingPattern(parent.parent);
}

/** The property an identifier reads; for `{ clock }` the property of the destructured type, not the new variable. */
function propertyAt(identifier: ts.Identifier, checker: ts.TypeChecker): ts.Symbol | undefined {
  const parent = identifier.parent;
  if (ts.isBindingElement(parent) && parent.propertyName === undefined) {
    return checker.getTypeAtLocation(parent.parent).getProperty(identifier.text);
  }
  return checker.getSymbolAtLocation(identifier);
}

/**
 * Every member of the named interfaces that no file of `sourceFiles` uses,
 * as `Interface.member`, sorted.
 *
 * @example
 * findUnusedMembers(["src/a.ts", "src/ports.ts"], [{ file: "src/ports.ts", interfaces: ["Port"] }]);
 * // ["Port.unused"]
 */
export function findUnusedMembers(sourceFiles: readonly string[], checked: readonly CheckedInterfaces[]): string[] {
  const program = ts.createProgram([...sourceFiles], COMPILER_OPTIONS);
  const checker = program.getTypeChecker();
  const members = new Map<ts.Declaration, string>();
  for (const { file, interfaces } of checked) {
    const source = program.getSourceFile(resolve(file));
    if (source === undefined) throw new Error(`${file} is not among the files checked`);
    for (const name of interfaces) {
      const declaration = source.statements.find(
        (statement): statement is ts.InterfaceDeclaration =>
          ts.isInterfaceDeclaration(statement) && statement.name.text === name,
      );
      if (declaration === undefined) throw new Error(`${file} declares no interface ${name}`);
      for (const member of declaration.members) {
        if (member.name !== undefined) members.set(member, `${name}.${member.name.getText(source)}`);
      }
    }
  }
  const used = new Set<string>();
  const names = new Set([...members.values()].map((qualified) => qualified.split(".")[1]));
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && names.has(node.text) && isUse(node)) {
      const symbol = propertyAt(node, checker);
      for (const declaration of symbol?.declarations ?? []) {
        const qualified = members.get(declaration);
        if (qualified !== undefined) used.add(qualified);
      }
    }
    ts.forEachChild(node, visit);
  };
  const wanted = new Set(sourceFiles.map((file) => resolve(file)));
  for (const source of program.getSourceFiles()) if (wanted.has(source.fileName)) visit(source);
  return [...members.values()].filter((qualified) => !used.has(qualified)).sort();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const unused = findUnusedMembers(listSourceFiles("src"), PORTS);
  if (unused.length > 0) {
    console.error(`port members nothing in src/ uses (delete them, or use them):\n  ${unused.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`every member of ${PORTS.flatMap((entry) => entry.interfaces).join(", ")} has a user in src/`);
}
