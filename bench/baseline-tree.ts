/**
 * The simulator as it was at an earlier commit, for a before/after bench in
 * one run: the commit's files are extracted with `git archive` into
 * `.tmp/baseline-<commit>` (git-ignored; no worktree registered, nothing in
 * the repository changes), with a link to this tree's `node_modules`, so its
 * own `bin/airtime-harness.js` runs its sources through tsx like ours.
 * Without git, or in a clone that lacks the commit, there is no tree and the
 * caller skips the target with a note.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

/** The parent of "Render public answers through a compiled provider profile": before the dialect renderer. */
export const BEFORE_DIALECTS_COMMIT = "cbac94d";

export type BaselineTree =
  { readonly kind: "ready"; readonly dir: string } | { readonly kind: "missing"; readonly why: string };

function resolveCommit(root: string, commit: string): string | undefined {
  const found = spawnSync("git", ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`], {
    cwd: root,
    encoding: "utf8",
  });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Extracts `commit` once (a marker file says it is complete) and returns its directory. */
export function prepareBaselineTree(root: string, commit: string): BaselineTree {
  const full = resolveCommit(root, commit);
  if (full === undefined)
    return { kind: "missing", why: `commit ${commit} is not reachable in this clone (or git is missing)` };
  const dir = resolve(root, ".tmp", `baseline-${full.slice(0, 12)}`);
  const marker = resolve(dir, ".extracted");
  if (!existsSync(marker)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync("git", ["archive", "--format=tar", full], { cwd: root, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", dir], { input: archive });
    // The dependencies of then and now are the same install; a link keeps the tree small.
    symlinkSync(realpathSync(resolve(root, "node_modules")), resolve(dir, "node_modules"), "dir");
    writeFileSync(marker, `${full}\n`);
  }
  return { kind: "ready", dir };
}
