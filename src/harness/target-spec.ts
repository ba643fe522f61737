/**
 * `--spec FILE`: judge response bodies against the target's own OpenAPI
 * document instead of our schemas — for a provider that publishes its own.
 * The document's response schema for the endpoint, method and status (or
 * `4XX`, or `default`) validates the body with Ajv; OpenAPI 3.1 documents use
 * JSON Schema 2020-12, older ones Ajv's default draft.
 */
import { readFile } from "node:fs/promises";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";

/** The operations the harness judges, by the interface's three endpoints. */
export type Endpoint = "send_airtime" | "lookup" | "balance" | "other";

export interface TargetSpec {
  readonly file: string;
  /** Problems with `body` against the document's schema; undefined when the document has none for this answer. */
  problems(endpoint: Endpoint, status: number, body: unknown): string[] | undefined;
}

const OPERATIONS: Readonly<Record<Exclude<Endpoint, "other">, { method: string; path: RegExp }>> = {
  send_airtime: { method: "post", path: /\/v1\/airtime$/ },
  lookup: { method: "get", path: /\/v1\/airtime\/\{[^}]+\}$/ },
  balance: { method: "get", path: /\/v1\/balance$/ },
};

type Json = Record<string, unknown>;

export async function loadTargetSpec(file: string): Promise<TargetSpec> {
  const document = parseYaml(await readFile(file, "utf8")) as Json;
  const version = String(document.openapi ?? "");
  const ajv = version.startsWith("3.1")
    ? new Ajv2020({ strict: false, allErrors: false })
    : new Ajv({ strict: false, allErrors: false });
  ajv.addSchema(document, "target");
  const paths = (document.paths ?? {}) as Record<string, Json>;
  const cache = new Map<string, ValidateFunction | undefined>();

  const validatorFor = (endpoint: Endpoint, status: number): ValidateFunction | undefined => {
    const key = `${endpoint} ${status}`;
    if (cache.has(key)) return cache.get(key);
    let validate: ValidateFunction | undefined;
    const operation = endpoint === "other" ? undefined : OPERATIONS[endpoint];
    const path = operation === undefined ? undefined : Object.keys(paths).find((p) => operation.path.test(p));
    if (operation !== undefined && path !== undefined) {
      const responses = ((paths[path]?.[operation.method] as Json | undefined)?.responses ?? {}) as Json;
      const code = [String(status), `${String(status)[0]}XX`, "default"].find((c) => Object.hasOwn(responses, c));
      const content = code === undefined ? undefined : ((responses[code] as Json).content as Json | undefined);
      const media = content === undefined ? undefined : Object.keys(content).find((m) => /json/i.test(m));
      if (code !== undefined && media !== undefined && (content?.[media] as Json).schema !== undefined) {
        const pointer = ["paths", path, operation.method, "responses", code, "content", media, "schema"]
          .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
          .join("/");
        validate = ajv.compile({ $ref: `target#/${pointer}` });
      }
    }
    cache.set(key, validate);
    return validate;
  };

  return {
    file,
    problems(endpoint, status, body) {
      const validate = validatorFor(endpoint, status);
      if (validate === undefined) return undefined;
      if (validate(body)) return [];
      return (validate.errors ?? [])
        .slice(0, 4)
        .map((e) => `${e.instancePath || "(body)"} ${e.message ?? "is invalid"}`);
    },
  };
}
