/**
 * Tokens that expire mid-run: `--token-command CMD` prints a bearer token
 * (the usual OAuth client-credentials flow lives in that command). It runs
 * once at the start, and again when a request that used a token which had
 * worked is answered 401 — the token expired. A stale token is then swapped
 * for the fresh one in every later request, so one expiry costs one refresh.
 */
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { HarnessError } from "./checker.ts";

const run = promisify(exec);
/** A token command that takes longer is broken, not slow. */
const TOKEN_COMMAND_TIMEOUT_MS = 30_000;

export interface TokenSource {
  /** The token to send instead of `token`: itself, or its fresh replacement when it expired. */
  current(token: string): string;
  /** `token` was accepted once (it is a real, working credential). */
  worked(token: string): void;
  /** `token` got a 401: when it had worked, runs the command again; resolves to the token to retry with, if any. */
  expired(token: string): Promise<string | undefined>;
}

/** Runs the command once and prints nothing but the token (its first non-empty line). */
export async function runTokenCommand(command: string): Promise<string> {
  try {
    const { stdout } = await run(command, { timeout: TOKEN_COMMAND_TIMEOUT_MS });
    const token = stdout
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line !== "");
    if (token === undefined) throw new HarnessError(`--token-command printed no token: ${command}`);
    return token;
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError(`--token-command failed: ${(error as Error).message.split("\n")[0] ?? ""}`);
  }
}

/**
 * @example
 * const first = await runTokenCommand(cmd);
 * const tokens = createTokenSource(cmd, first);
 */
export function createTokenSource(command: string, first: string): TokenSource {
  const replaced = new Map<string, string>();
  const working = new Set<string>();
  let latest = first;
  let refreshing: Promise<string> | undefined;
  const resolve = (token: string): string => {
    let current = token;
    while (replaced.has(current)) current = replaced.get(current) as string;
    return current;
  };
  return {
    current: resolve,
    worked: (token) => {
      if (token === latest) working.add(token);
    },
    async expired(token) {
      if (!working.has(token)) return undefined;
      if (token === latest) {
        refreshing ??= runTokenCommand(command).finally(() => (refreshing = undefined));
        const fresh = await refreshing;
        if (fresh !== token) {
          replaced.set(token, fresh);
          latest = fresh;
        }
      }
      const fresh = resolve(token);
      return fresh === token ? undefined : fresh;
    },
  };
}
