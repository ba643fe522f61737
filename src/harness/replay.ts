/**
 * `--seed S --path P` replays one failing run exactly. For model runs the
 * path carries fast-check's shrink path and, after `@`, the commands' replay
 * path (which commands actually ran), because both are needed to rebuild the
 * same command sequence.
 */
export interface ReplayPath {
  readonly path: string;
  readonly replayPath: string | undefined;
}

export function formatReplayPath(path: string, replayPath: string | undefined): string {
  return replayPath === undefined || replayPath === "" ? path : `${path}@${replayPath}`;
}

export function parseReplayPath(text: string): ReplayPath | undefined {
  const at = text.indexOf("@");
  const path = at === -1 ? text : text.slice(0, at);
  if (!/^\d+(:\d+)*$/.test(path)) return undefined;
  return { path, replayPath: at === -1 ? undefined : text.slice(at + 1) };
}

/** Quotes one shell word when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) || /^\$[A-Z_]+$/.test(word)
    ? word
    : `"${word.replace(/(["\\`])/g, "\\$1")}"`;
}
