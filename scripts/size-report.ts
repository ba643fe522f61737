/**
 * How big the code is, measured the way the size rules read it: the lines of
 * `src/`, the files over the per-file limit and the functions over the
 * per-function limit. A total says little on its own; the two lists say
 * where complexity sits. Run with `npx tsx scripts/size-report.ts [dir]`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const FILE_LIMIT = 800;
const FUNCTION_LIMIT = 80;

interface FunctionSize {
  readonly file: string;
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined) {
    return node.name.getText(source);
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return "(anonymous)";
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

function functionSizes(file: string): FunctionSize[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ file, name: nameOf(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

function lineCount(file: string): number {
  const text = readFileSync(file, "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

// Piped into `head`, the reader may leave early: that ends the report, quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

const root = process.argv[2] ?? "src";
const files = listSourceFiles(root).sort();
const lengths = files.map((file) => ({ file, lines: lineCount(file) }));
const bigFiles = lengths.filter(({ lines }) => lines > FILE_LIMIT).sort((a, b) => b.lines - a.lines);
const bigFunctions = files
  .flatMap(functionSizes)
  .filter(({ lines }) => lines > FUNCTION_LIMIT)
  .sort((a, b) => b.lines - a.lines);

console.log(`${root}: ${lengths.reduce((sum, { lines }) => sum + lines, 0)} lines in ${files.length} files`);
console.log(`files over ${FILE_LIMIT} lines: ${bigFiles.length}`);
for (const { file, lines } of bigFiles) console.log(`  ${lines}  ${relative(".", file)}`);
console.log(`functions over ${FUNCTION_LIMIT} lines: ${bigFunctions.length}`);
for (const { file, name, line, lines } of bigFunctions)
  console.log(`  ${lines}  ${relative(".", file)}:${line} ${name}`);
