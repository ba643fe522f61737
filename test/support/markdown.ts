/**
 * The project's Markdown read as GitHub renders it, so tests can hold the
 * docs to the code: heading anchors, links, sections, tables and code blocks.
 */
import GithubSlugger from "github-slugger";
import MarkdownIt, { type Token } from "markdown-it";

const parser = MarkdownIt();

function plainText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((child) => child.type === "text" || child.type === "code_inline")
    .map((child) => child.content)
    .join("");
}

/** The `#anchor` of every heading, numbered for repeats as GitHub does (`#setup`, `#setup-1`). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = parser.parse(markdown, {});
  const anchors = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type === "heading_open") anchors.add(slugger.slug(plainText(tokens[index + 1])));
  });
  return anchors;
}

/** Every link target (`href`) outside code, in document order. */
export function linkTargets(markdown: string): string[] {
  return parser
    .parse(markdown, {})
    .flatMap((token) => token.children ?? [])
    .filter((child) => child.type === "link_open")
    .map((child) => String(child.attrGet("href") ?? ""));
}

/**
 * The source of the section under the heading whose anchor is `anchor`, up to
 * the next heading of the same or a higher level.
 */
export function section(markdown: string, anchor: string): string {
  const slugger = new GithubSlugger();
  const tokens = parser.parse(markdown, {});
  const lines = markdown.split("\n");
  let start: { line: number; level: number } | undefined;
  for (const [index, token] of tokens.entries()) {
    if (token.type !== "heading_open" || token.map === null) continue;
    const level = Number(token.tag.slice(1)); // "h2" → 2
    if (start !== undefined && level <= start.level) return lines.slice(start.line, token.map[0]).join("\n");
    if (start === undefined && slugger.slug(plainText(tokens[index + 1])) === anchor) {
      start = { line: token.map[0], level };
    }
  }
  if (start === undefined) throw new Error(`no heading with the anchor #${anchor}`);
  return lines.slice(start.line).join("\n");
}

/** The body rows of every table, each row as its cells' Markdown source. */
export function tableRows(markdown: string): string[][] {
  const rows: string[][] = [];
  let row: string[] | undefined;
  let inBody = false;
  for (const token of parser.parse(markdown, {})) {
    if (token.type === "tbody_open") inBody = true;
    else if (token.type === "tbody_close") inBody = false;
    else if (inBody && token.type === "tr_open") row = [];
    else if (inBody && token.type === "tr_close" && row !== undefined) rows.push(row);
    else if (inBody && token.type === "inline" && row !== undefined) row.push(token.content);
  }
  return rows;
}

/** The fenced code blocks, with the language their fence names. */
export function codeBlocks(markdown: string): Array<{ language: string; code: string }> {
  return parser
    .parse(markdown, {})
    .filter((token) => token.type === "fence")
    .map((token) => ({ language: token.info.trim(), code: token.content }));
}
