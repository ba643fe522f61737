/**
 * `profile init --from-target URL`: writes a provider profile inferred by
 * probing the target, each field commented with how it was found. Prints
 * every request the probe sends; writes nothing but FILE, and never
 * overwrites it.
 */
import { access, readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { inferFromTarget, type InferredProfile } from "../learn/infer-from-target.ts";
import { combineInferences, inferFromOpenApi } from "../learn/infer-from-openapi.ts";
import { profileYaml } from "../learn/profile-yaml.ts";
import { probeSettings } from "./profile-settings.ts";

export const INFER_USAGE = `       airtime-harness profile init --from-target URL --token TOKEN [--other-token TOKEN]
                                   [--listen HOST:PORT --webhook-secret SECRET] [--budget KES]
                                   [--account NUMBER] [--timeout DUR] FILE
       airtime-harness profile init --from-openapi DOCUMENT [--from-target URL --token TOKEN …] FILE`;

const OPTIONS = {
  "from-target": { type: "string" },
  "from-openapi": { type: "string" },
  token: { type: "string" },
  "other-token": { type: "string" },
  listen: { type: "string" },
  "webhook-secret": { type: "string" },
  budget: { type: "string" },
  account: { type: "string" },
  timeout: { type: "string" },
} as const;

export async function initFromTarget(args: string[], usage: string): Promise<number> {
  const fail = (message: string) => {
    console.error(`airtime-harness profile init: ${message}\n\n${usage}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) return fail("takes one FILE");
  const document = values["from-openapi"];
  if (document !== undefined) {
    if (values["from-target"] === undefined) return initFromOpenApi(document, file, fail);
  }
  if (values["from-target"] === undefined || values.token === undefined) return fail("needs --from-target and --token");
  const probe = probeSettings(values);
  if (typeof probe === "string") return fail(probe);
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) return fail(`--budget '${values.budget}' is not an amount of KES`);
  if (await fileExists(file)) return fail(`${file} exists; not overwritten`);
  const fromDocument = document === undefined ? undefined : await inferenceFromDocument(document);
  if (typeof fromDocument === "string") return fail(fromDocument);
  const result = await inferFromTarget(
    {
      target: values["from-target"],
      token: values.token,
      ...(values["other-token"] === undefined ? {} : { otherToken: values["other-token"] }),
      account: probe.account,
      ...probe.webhook,
      ...(budget === undefined ? {} : { budget }),
      timeoutMs: probe.timeoutMs,
    },
    (line) => console.log(line),
  );
  if (!result.ok) {
    console.error(`airtime-harness profile init: ${result.reason} (spent KES ${result.spent})`);
    return 1;
  }
  const header = `Inferred by probing ${values["from-target"]} (KES ${result.spent} spent of a budget of ${result.budget}); review each comment.`;
  const inferred = fromDocument === undefined ? result.inferred : combineInferences(result.inferred, fromDocument);
  await writeFile(file, profileYaml(inferred, header), "utf8");
  console.log(`\nspent KES ${result.spent} of a budget of KES ${result.budget}`);
  for (const what of inferred.missing) console.log(`- not inferred: ${what}`);
  console.log(`wrote ${file}: check it with airtime-harness profile check ${file} --target URL --token TOKEN`);
  return 0;
}

/** The profile the document gives, or why it cannot be read. */
export async function inferenceFromDocument(document: string): Promise<InferredProfile | string> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(document, "utf8"));
  } catch (error) {
    return `${document}: ${(error as Error).message}`;
  }
  if (typeof raw !== "object" || raw === null) return `${document} is not an OpenAPI document`;
  return inferFromOpenApi(raw as Record<string, unknown>);
}

async function initFromOpenApi(document: string, file: string, fail: (message: string) => number): Promise<number> {
  if (await fileExists(file)) return fail(`${file} exists; not overwritten`);
  const inferred = await inferenceFromDocument(document);
  if (typeof inferred === "string") return fail(inferred);
  await writeFile(file, profileYaml(inferred, `Inferred from ${document}; review each comment.`), "utf8");
  for (const what of inferred.missing) console.log(`- not inferred: ${what}`);
  console.log(`wrote ${file}: check it with airtime-harness profile check ${file} --target URL --token TOKEN`);
  return 0;
}

/** Whether a file is there already: neither command writes over one. */
export async function fileExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
