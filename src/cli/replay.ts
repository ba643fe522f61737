/**
 * `airtime-harness replay FILE`: runs the failure a `contract --emit-test`
 * file holds, without vitest. Exit 0 when the check holds, 1 when it fails
 * again, 2 for a usage or harness error (no such file, no failure in it, an
 * unreachable target).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

const USAGE = `usage: airtime-harness replay FILE

Replays the shrunk counterexample in FILE (written by contract --emit-test)
against AIRTIME_TARGET, or the target it was found on. Tokens come from
AIRTIME_TOKEN, AIRTIME_OTHER_TOKEN, AIRTIME_ADMIN_TOKEN and
AIRTIME_WEBHOOK_SECRET.

options:
  -h, --help   this text

exit code: 0 the check holds, 1 it failed again, 2 usage or harness error.`;

/**
 * @example
 * // airtime-harness replay failures/never_server_error.test.ts
 * process.exitCode = await replay(["failures/never_server_error.test.ts"]);
 */
export async function replay(args: string[]): Promise<number> {
  const usageError = (message: string): number => {
    console.error(`airtime-harness replay: ${message}\n\n${USAGE}`);
    return 2;
  };
  let parsed: ReturnType<typeof parseReplayArgs>;
  try {
    parsed = parseReplayArgs(args);
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (parsed.values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (file === undefined) return usageError("give the file to replay");
  if (extra.length > 0) return usageError(`one file at a time (also given: ${extra.join(" ")})`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return usageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const [{ readEmittedTest }, { replayFailure }] = await Promise.all([
    import("../harness/emit-test.ts"),
    import("../harness/replay-failure.ts"),
  ]);
  const read = readEmittedTest(text);
  if (!read.ok) return usageError(`${file}: ${read.error}`);
  try {
    const outcome = await replayFailure(read.failure);
    (outcome.holds ? console.log : console.error)(outcome.verdict);
    return outcome.holds ? 0 : 1;
  } catch (error) {
    console.error(`airtime-harness replay: ${(error as Error).message}`);
    return 2;
  }
}

function parseReplayArgs(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: { help: { type: "boolean", short: "h" } } });
}
