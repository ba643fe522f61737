/**
 * The project's Markdown read as GitHub renders it, so tests can hold the
 * docs to the code.
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
