#!/usr/bin/env node
/**
 * The `airtime-harness` command: one entry, a subcommand per face of the tool.
 * Each subcommand lives in its own file, loaded only when it runs, and
 * returns an exit code: 0 ok, 1 checks failed, 2 a usage error or a target
 * that cannot be reached.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { didYouMean } from "../contract/did-you-mean.ts";
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
  "handler-check": {
    summary: "property-test your webhook handler: duplicates, disorder, forgeries, downtime",
    load: async () => (await import("./handler-check.ts")).handlerCheck,
  },
  scenarios: {
    summary: "validate scenario files, list the shipped ones and the magic accounts",
    load: async () => (await import("./scenarios.ts")).scenarios,
  },
  contract: {
    summary: "run the property-based contract checks against the simulator or a deployment",
    load: async () => (await import("./contract.ts")).contract,
  },
  compare: {
    summary: "measure how faithfully the simulator imitates a target; --calibrate fits it",
    load: async () => (await import("./compare.ts")).compare,
  },
  replay: {
    summary: "replay a failure written by contract --emit-test, without vitest",
    load: async () => (await import("./replay.ts")).replay,
  },
  init: {
    summary: "write a commented config and an example scenario here",
    load: async () => (await import("./init.ts")).init,
  },
  secret: {
    summary: "print a fresh whsec_ webhook signing secret",
    load: async () => (await import("./secret.ts")).secret,
  },
  spec: {
    summary: "write the OpenAPI document of our spec, or of a provider's dialect (--provider)",
    load: async () => (await import("./spec.ts")).spec,
  },
  profile: {
    summary: "write a provider profile (init) and see what it finds on a live target (check)",
    load: async () => (await import("./profile.ts")).profile,
  },
  learn: {
    summary: "probe a target for its profile, calibrate, and write a twin's provider.yaml and simulator.json",
    load: async () => (await import("./learn.ts")).learn,
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`);
  return [
    "usage: airtime-harness <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "options:",
    "  -h, --help      this text; `airtime-harness help <command>` or `<command> --help` for a command's",
    "  -v, --version   the version",
    "",
    "exit status: 0 ok, 1 checks failed, 2 usage error or target unreachable.",
  ].join("\n");
}

function unknown(name: string): number {
  console.error(
    `airtime-harness: unknown command '${name}'${didYouMean(name, Object.keys(SUBCOMMANDS))}\n\n${usage()}`,
  );
  return 2;
}

/**
 * `airtime-harness scenarios accounts | head -1`: once the reader has gone,
 * writing to the pipe fails with EPIPE, which Node raises as an unhandled
 * error with a stack trace. There is nobody left to tell, so the command
 * stops quietly, successfully, as Unix tools do.
 */
let quietOnClosedPipe = false;

function exitQuietlyOnClosedPipe(): void {
  if (quietOnClosedPipe) return;
  quietOnClosedPipe = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(0);
      throw error;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  const [name, ...rest] = argv;
  switch (name) {
    case undefined:
      console.error(usage());
      return 2;
    case "-h":
    case "--help":
      console.log(usage());
      return 0;
    case "-v":
    case "--version":
      console.log(packageVersion());
      return 0;
    case "help": {
      const [topic] = rest;
      if (topic === undefined) {
        console.log(usage());
        return 0;
      }
      const entry = SUBCOMMANDS[topic];
      return entry === undefined ? unknown(topic) : (await entry.load())(["--help"]);
    }
    default: {
      const entry = SUBCOMMANDS[name];
      return entry === undefined ? unknown(name) : (await entry.load())(rest);
    }
  }
}

// Run when this file is the program, also through npm's bin symlink (argv[1] is the link, import.meta.url its target).
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
