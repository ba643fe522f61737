/**
 * `airtime-harness spec [--provider FILE]`: the public API's OpenAPI
 * document, our spec's or, with a provider profile, that dialect's, for a
 * client generator, a validating proxy or `contract --spec`.
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { dialectOpenApiDocument } from "../contract/openapi/dialect-document.ts";
import { renderOpenApiYaml } from "../contract/openapi/render-yaml.ts";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import { unknownOptionMessage } from "./flag-table.ts";

const USAGE = `usage: airtime-harness spec [--provider FILE] [--out FILE]

Writes the OpenAPI 3.1 document of the public API and its webhook as YAML:
our spec's (spec/openapi.yaml), or with --provider the document of the
dialect \`serve --provider FILE\` speaks (its bodies, error statuses and
webhook headers). A simulator serves the same as JSON at /openapi.json.

options:
  --provider FILE   a provider profile (YAML or JSON)
  --out FILE        write it there instead of stdout
  -h, --help        this text`;

const OPTIONS = {
  provider: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function spec(args: string[]): Promise<number> {
  let values: { provider?: string; out?: string; help?: boolean };
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    console.error(
      `airtime-harness spec: ${unknownOptionMessage(error, Object.keys(OPTIONS)) ?? (error as Error).message}`,
    );
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  let provider;
  if (values.provider !== undefined) {
    const loaded = await loadProviderProfile(values.provider);
    if (!loaded.ok) {
      console.error(formatProfileIssues(values.provider, loaded.issues));
      return 2;
    }
    provider = loaded.profile;
  }
  const name = provider?.name ?? "our spec";
  const text = renderOpenApiYaml(dialectOpenApiDocument(provider), `Written by \`airtime-harness spec\` for ${name}.`);
  if (values.out === undefined) process.stdout.write(text);
  else await writeFile(values.out, text, "utf8");
  return 0;
}
