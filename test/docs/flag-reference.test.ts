/**
 * The configuration reference lists exactly the flags, and the environment
 * twins, that `serve --help`, `listen --help`, `contract --help` and
 * `handler-check --help` print: a flag added,
 * renamed or dropped in the CLI fails here until docs/configuration.md says so.
 */
import { readFile } from "node:fs/promises";
import { expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { SimulatorConfigSchema } from "../../src/simulator/config-schema.ts";
import { section, tableRows } from "../support/markdown.ts";

const FLAG = /(--[a-z][a-z-]*)/;
const ENV = /\b(AIRTIME_[A-Z_]+)\b/;

async function helpOf(command: string): Promise<string> {
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    printed.push(args.join(" "));
  });
  try {
    expect(await main([command, "--help"])).toBe(0);
  } finally {
    log.mockRestore();
  }
  return printed.join("\n");
}

/** "--flag ENV" (or "--flag" alone) per flag of a `--help` text; a flag's help may wrap onto indented lines. */
function flagsInHelp(help: string): string[] {
  const twins = new Map<string, string>();
  let current: string | undefined;
  for (const line of help.split("\n")) {
    if (!/^\s/.test(line)) current = undefined;
    const flag = /^\s+(?:-\w, )?(--[a-z][a-z-]*)/.exec(line)?.[1];
    if (flag !== undefined) {
      current = flag;
      twins.set(flag, "");
    }
    const env = ENV.exec(line)?.[1];
    if (current !== undefined && env !== undefined && twins.get(current) === "") twins.set(current, env);
  }
  twins.delete("--help");
  return [...twins].map(([flag, env]) => `${flag} ${env}`.trim()).sort();
}

/** The same, from the flag table under a heading of docs/configuration.md. */
function flagsInDocs(markdown: string, anchor: string): string[] {
  return tableRows(section(markdown, anchor))
    .map(([flagCell = "", envCell = ""]) => `${FLAG.exec(flagCell)?.[1] ?? flagCell} ${ENV.exec(envCell)?.[1] ?? ""}`)
    .map((row) => row.trim())
    .sort();
}

const reference = () => readFile("docs/configuration.md", "utf8");

test("docs/configuration.md lists every serve flag with its environment twin, as serve --help does", async () => {
  const inHelp = flagsInHelp(await helpOf("serve"));
  expect(inHelp).toContain("--webhook-url AIRTIME_SIM_WEBHOOK_URL");
  expect(flagsInDocs(await reference(), "serve-flags-and-environment")).toEqual(inHelp);
});

test("docs/configuration.md lists every listen flag with its environment twin, as listen --help does", async () => {
  const inHelp = flagsInHelp(await helpOf("listen"));
  expect(inHelp).toEqual(expect.arrayContaining(["--json", "--status AIRTIME_LISTEN_STATUS"]));
  expect(flagsInDocs(await reference(), "listen-flags")).toEqual(inHelp);
});

test("docs/configuration.md lists every contract flag with its environment twin, as contract --help does", async () => {
  const inHelp = flagsInHelp(await helpOf("contract"));
  expect(inHelp).toEqual(expect.arrayContaining(["--profile", "--token AIRTIME_TOKEN"]));
  expect(flagsInDocs(await reference(), "contract-flags")).toEqual(inHelp);
});

test("docs/configuration.md lists every handler-check flag with its environment twin, as its --help does", async () => {
  const inHelp = flagsInHelp(await helpOf("handler-check"));
  expect(inHelp).toEqual(expect.arrayContaining(["--state", "--secret AIRTIME_WEBHOOK_SECRET"]));
  expect(flagsInDocs(await reference(), "handler-check-flags")).toEqual(inHelp);
});

test("docs/configuration.md lists exactly the config file's top-level keys, as SimulatorConfigSchema knows them", async () => {
  const keys = Object.keys(SimulatorConfigSchema.shape).sort();
  expect(keys).toEqual(expect.arrayContaining(["clock", "customers", "webhooks", "scenarios"]));
  const documented = tableRows(section(await reference(), "the-config-file"))
    .map(([keyCell = ""]) => /^`(\$?[A-Za-z]+)(\[\])?`$/.exec(keyCell)?.[1] ?? keyCell)
    .sort();
  expect(documented).toEqual(keys);
});
