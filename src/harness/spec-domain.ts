/**
 * `--spec FILE` fills the provider profile's `domain` from the target's own
 * OpenAPI document when the profile leaves it out: the send-airtime request
 * schema's bounds become the amounts the generators draw, its reference
 * pattern the references, its enums the services and currency, and its
 * account pattern the account forms. Each field the document does not
 * constrain stays open (our spec's default), as if the profile had left it
 * out; a section the profile gives always wins.
 */
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { type AccountFormat, isRegExp, type ProviderProfile } from "../contract/provider-profile/schema.ts";
import { SERVICES } from "../contract/operators.ts";

type Json = Record<string, unknown>;
type Domain = NonNullable<ProviderProfile["domain"]>;

/** One written number per account form: a form is accepted when the document's pattern matches it. */
const FORM_SAMPLES: Readonly<Record<AccountFormat, string>> = {
  local: "0712345678",
  international: "254712345678",
  e164: "+254712345678",
  short: "712345678",
};

/** The domain the document's `POST …/v1/airtime` request body states, or undefined when it states none. */
export async function domainFromSpecFile(file: string): Promise<Domain | undefined> {
  return domainFromSpec(parseYaml(await readFile(file, "utf8")) as Json);
}

/**
 * @example
 * domainFromSpec(document); // { amount: { min: 10, max: 5000, decimals: 0 }, services: ["safaricom", "airtel"] }
 */
export function domainFromSpec(document: Json): Domain | undefined {
  const resolve = (node: unknown): Json => resolveRef(document, node);
  const paths = (document.paths ?? {}) as Json;
  const path = Object.keys(paths).find((candidate) => /\/v1\/airtime$/.test(candidate));
  const operation = path === undefined ? undefined : resolve((resolve(paths[path]).post as Json | undefined) ?? {});
  const content = resolve(resolve(operation?.requestBody).content);
  const media = Object.keys(content).find((name) => /json/i.test(name));
  const body = media === undefined ? {} : resolve(resolve(content[media]).schema);
  const fields = Object.fromEntries(
    Object.entries((body.properties ?? {}) as Json).map(([name, node]) => [name, resolve(node)]),
  );
  const domain: Domain = {
    ...amountOf(fields.amount),
    ...referenceOf(fields.reference),
    ...accountsOf(fields.account),
    ...servicesOf(fields.service),
    ...currencyOf(fields.currency),
  };
  return Object.keys(domain).length === 0 ? undefined : domain;
}

/** A `$ref` to a place in the same document, followed (chains too); anything else as it is. */
export function resolveRef(document: Json, node: unknown, depth = 0): Json {
  if (typeof node !== "object" || node === null) return {};
  const ref = (node as Json).$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/") || depth > 8) return node as Json;
  const target = ref
    .slice(2)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((at, part) => (typeof at === "object" && at !== null ? (at as Json)[part] : undefined), document);
  return resolveRef(document, target, depth + 1);
}

const numberOr = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

function amountOf(node: Json | undefined): Pick<Domain, "amount"> {
  if (node === undefined) return {};
  const min = numberOr(node.minimum) ?? numberOr(node.exclusiveMinimum);
  const max = numberOr(node.maximum) ?? numberOr(node.exclusiveMaximum);
  const step = node.type === "integer" ? 1 : numberOr(node.multipleOf);
  // 1 → no decimals, 0.1 → one, 0.01 → two; another step is not a number of decimals.
  const decimals = step === undefined ? undefined : [1, 0.1, 0.01].findIndex((candidate) => candidate === step);
  const amount = {
    ...(min !== undefined && min > 0 ? { min } : {}),
    ...(max !== undefined && max > 0 ? { max } : {}),
    ...(decimals !== undefined && decimals >= 0 ? { decimals } : {}),
  };
  return Object.keys(amount).length === 0 ? {} : { amount };
}

function referenceOf(node: Json | undefined): Pick<Domain, "reference"> {
  if (node === undefined) return {};
  const pattern = typeof node.pattern === "string" && isRegExp(node.pattern) ? node.pattern : undefined;
  const maxLength = numberOr(node.maxLength);
  const reference = {
    ...(pattern === undefined ? {} : { pattern }),
    ...(maxLength !== undefined && maxLength >= 1 ? { maxLength } : {}),
  };
  return Object.keys(reference).length === 0 ? {} : { reference };
}

function accountsOf(node: Json | undefined): Pick<Domain, "accounts"> {
  if (typeof node?.pattern !== "string" || !isRegExp(node.pattern)) return {};
  const pattern = new RegExp(node.pattern, "u");
  const accounts = (Object.keys(FORM_SAMPLES) as AccountFormat[]).filter((form) => pattern.test(FORM_SAMPLES[form]));
  return accounts.length === 0 ? {} : { accounts };
}

function servicesOf(node: Json | undefined): Pick<Domain, "services"> {
  const known = new Set<string>(SERVICES);
  const services = (Array.isArray(node?.enum) ? node.enum : []).filter(
    (value): value is (typeof SERVICES)[number] => typeof value === "string" && known.has(value),
  );
  return services.length === 0 ? {} : { services };
}

function currencyOf(node: Json | undefined): Pick<Domain, "currency"> {
  const stated = node?.const ?? (Array.isArray(node?.enum) && node.enum.length === 1 ? node.enum[0] : undefined);
  return typeof stated === "string" ? { currency: stated } : {};
}
