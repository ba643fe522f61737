/**
 * The argument check of a command that takes none but `--help`: its exit
 * code when the arguments end the command (help, or a usage error), else
 * undefined and the command goes on.
 */
export function helpOrNoArguments(command: string, usage: string, args: readonly string[]): number | undefined {
  if (args.length === 1 && (args[0] === "-h" || args[0] === "--help")) {
    console.log(usage);
    return 0;
  }
  if (args.length === 0) return undefined;
  console.error(`airtime-harness ${command}: takes no arguments, not ${args.join(" ")}\n\n${usage}`);
  return 2;
}
