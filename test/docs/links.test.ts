/** Every relative link and `#anchor` in the README and the guides leads somewhere. */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";
import { headingAnchors, linkTargets } from "../support/markdown.ts";

const ROOT = resolve(import.meta.dirname, "../..");

async function markdownFiles(root: string): Promise<string[]> {
  const top = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"].filter((file) => existsSync(join(root, file)));
  const docs = existsSync(join(root, "docs")) ? await readdir(join(root, "docs")) : [];
  return [...top, ...docs.filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`)];
}

/** The links of `file` (relative to `root`) that point at no file, or at no heading of a Markdown file. */
async function brokenLinks(root: string, file: string): Promise<string[]> {
  const source = await readFile(join(root, file), "utf8");
  const broken: string[] = [];
  for (const target of linkTargets(source)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: — not ours to check
    const [path = "", anchor] = target.split("#", 2);
    const linked = path === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURI(path));
    if (!existsSync(linked)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined || !linked.endsWith(".md")) continue;
    const anchors = headingAnchors(await readFile(linked, "utf8"));
    if (!anchors.has(anchor)) broken.push(`${file}: ${target} (no such heading in ${relative(root, linked)})`);
  }
  return broken;
}

test("the README and every guide link only to files and headings that exist", async () => {
  const files = await markdownFiles(ROOT);
  expect(files).toEqual(expect.arrayContaining(["README.md", "docs/simulator.md", "docs/configuration.md"]));
  const broken = (await Promise.all(files.map((file) => brokenLinks(ROOT, file)))).flat();
  expect(broken).toEqual([]);
});

test("the link check reports a missing file, a missing heading and a missing local anchor", async () => {
  const root = await mkdtemp(join(tmpdir(), "airtime-docs-"));
  try {
    await writeFile(join(root, "README.md"), "# Top\n\n## A section\n\nSee [x](#a-section) and [y](#nowhere).\n");
    await writeFile(
      join(root, "CONTRIBUTING.md"),
      "[ok](README.md#top) [gone](missing.md) [bad anchor](README.md#no-such-part) [web](https://example.com)\n",
    );
    const broken = [...(await brokenLinks(root, "README.md")), ...(await brokenLinks(root, "CONTRIBUTING.md"))];
    expect(broken).toEqual([
      "README.md: #nowhere (no such heading in README.md)",
      "CONTRIBUTING.md: missing.md (no such file)",
      "CONTRIBUTING.md: README.md#no-such-part (no such heading in README.md)",
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
