/**
 * A client generated from each example provider's dialect document works
 * against `serve --provider`: `openapi-typescript` writes the types from
 * `spec --provider P`, a client written for the dialect with `openapi-fetch`
 * typechecks under `--strict` against them (one TypeScript program for all
 * providers), and then places, replays, looks up and reads the balance
 * against the simulator on a real port. A client written for one dialect
 * does not typecheck against another's types: the types are the dialect's.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, expect, test } from "vitest";
import { dialectOpenApiDocument } from "../../src/contract/openapi/dialect-document.ts";
import { PACKAGE_ROOT } from "../../src/package-root.ts";
import { useTempFolder } from "../support/temp-folder.ts";
import { CLIENT_SOURCES, type ClientReading } from "./dialect-clients.ts";
import { EXAMPLE_PROVIDERS, exampleProfile, startDialectTarget, type DialectTarget } from "./dialect-targets.ts";

const folder = useTempFolder("dialect-clients-");
/** Every provider's client and types, and one client checked against another dialect's types. */
const MISMATCHED = "mismatched";
/** The success status each dialect's lookup writes: our code 20, or the word of its own table. */
const SUCCESS: Readonly<Record<string, string | number>> = {
  "airtime-harness.yaml": 20,
  "enveloped-string-money.yaml": 20,
  "word-statuses-hmac.yaml": "COMPLETED",
};

async function writeClient(at: string, name: string, client: string): Promise<string> {
  mkdirSync(at);
  const document = dialectOpenApiDocument(await exampleProfile(name));
  writeFileSync(join(at, "schema.d.ts"), astToString(await openapiTS(document as unknown as OpenAPI3)));
  const file = join(at, "client.ts");
  writeFileSync(file, client);
  return file;
}

/** `tsc --noEmit --strict` over the given files, as the diagnostics of each file's folder (its types too). */
function typecheck(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  const found = new Map<string, string[]>(files.map((file) => [dirname(file), []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const where = diagnostic.file === undefined ? "(no file)" : dirname(diagnostic.file.fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    found.set(where, [...(found.get(where) ?? []), text]);
  }
  return found;
}

const clients = new Map<string, string>();
let diagnostics: Map<string, string[]>;

beforeAll(async () => {
  // The clients import openapi-fetch as a project would: from a node_modules beside them.
  symlinkSync(resolve(PACKAGE_ROOT, "node_modules"), join(folder(), "node_modules"), "dir");
  for (const name of EXAMPLE_PROVIDERS) {
    const source = CLIENT_SOURCES[name];
    if (source === undefined) throw new Error(`no client written for examples/providers/${name}`);
    clients.set(name, await writeClient(join(folder(), name.replace(/\.yaml$/, "")), name, source));
  }
  const enveloped = CLIENT_SOURCES["enveloped-string-money.yaml"] as string;
  clients.set(MISMATCHED, await writeClient(join(folder(), MISMATCHED), "word-statuses-hmac.yaml", enveloped));
  diagnostics = typecheck([...clients.values()]);
}, 120_000);

const targets: DialectTarget[] = [];
afterAll(async () => {
  for (const target of targets) await target.sim.close();
});

test.each(EXAMPLE_PROVIDERS)("the client generated for %s typechecks under --strict", (name) => {
  expect(diagnostics.get(dirname(clients.get(name) as string))).toEqual([]);
  expect(diagnostics.get("(no file)")).toBeUndefined();
});

test("a client written for the enveloped dialect does not typecheck against the word-status dialect's types", () => {
  expect((diagnostics.get(dirname(clients.get(MISMATCHED) as string)) ?? []).join("\n")).toMatch(/'data'/);
});

test.each(EXAMPLE_PROVIDERS)(
  "the client for %s places, replays, looks up and reads the balance against serve --provider",
  async (name) => {
    const profile = await exampleProfile(name);
    const target = await startDialectTarget(profile, { seed: 3, failureRate: 0 });
    targets.push(target);
    const { exercise } = (await import(pathToFileURL(clients.get(name) as string).href)) as {
      exercise: (baseUrl: string, token: string, reference: string) => Promise<ClientReading>;
    };
    const read = await exercise(target.url, target.token, `CLIENT-${name.length}-1`);
    const inMoney = (value: number) => (profile.money === "string" ? value.toFixed(2) : value);
    expect(read).toEqual({
      id: expect.stringMatching(/\S/),
      replayedId: read.id,
      replayedHeader: "true",
      status: SUCCESS[name],
      amount: inMoney(100),
      balance: inMoney(1_000_000 - 100),
    });
  },
);
