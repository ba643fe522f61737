#!/usr/bin/env node
/**
 * The `airtime-harness` command: one entry, a subcommand per face of the tool.
 * Each subcommand lives in its own file and returns an exit code.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { packageVersion } from "../package-root.ts";

type Subcommand = (args: string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, { summary: string; load: () => Promise<Subcommand> }> = {
  serve: {
    summary: "start the stateful simulator",
    load: async () => (await import("./serve.ts")).serve,
  },
  listen: {
    summary: "receive, verify and print webhooks",
    load: async () => (await import("./listen.ts")).listen,
  },
  trigger: {
    summary: "make a webhook of any final status reach your handler",
    load: async () => (await import("./trigger.ts")).trigger,
  },
  scenarios: {
    summary: "validate scenario files (scenarios validate FILE...)",
    load: async () => (await import("./scenarios.ts")).scenarios,
  },
  contract: {
    summary: "run the property-based contract checks against the simulator or a deployment",
    load: async () => (await import("./contract.ts")).contract,
  },
};

export function usage(): string {
  const lines = Object.entries(SUBCOMMANDS).map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`);
  return [
    "usage: airtime-harness <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "Run `airtime-harness <command> --help` for a command's options.",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    console.log(packageVersion());
    return 0;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = SUBCOMMANDS[name];
  if (entry === undefined) {
    console.error(`airtime-harness: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  const run = await entry.load();
  return run(rest);
}

// Run when this file is the program, also through npm's bin symlink (argv[1] is the link, import.meta.url its target).
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
