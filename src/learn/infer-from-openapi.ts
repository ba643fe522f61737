/**
 * `profile init --from-openapi FILE`: the profile written from the
 * provider's OpenAPI document. Pointers come from property names and
 * descriptions, word statuses from the lookup's enum (their numbers from
 * the send answer's enum as its description names them, their classes from
 * the words of each one's description: refunded means failed, reversed
 * after delivery means reversed), errors from the error responses (HTTP
 * status by what each describes, the code by its example or the code
 * named in its description), the domain from the request schema, the
 * webhook's filter, delivery id and signing from its headers and body.
 * Where several fields fit, the best is taken and the others are listed.
 * Beside `--from-target`, the probe's inference and the document's are
 * combined (`combineInferences`): what the probe saw wins.
 */
import type { ProfileStatusClass, ProviderProfile } from "../contract/provider-profile/schema.ts";
import { domainFromSpec, resolveRef } from "../harness/spec-domain.ts";
import { createFindingLog, type FieldNote } from "./inference.ts";
import type { InferredProfile } from "./infer-from-target.ts";
import { valueAt } from "./json-leaves.ts";

type Json = Record<string, unknown>;
type Log = ReturnType<typeof createFindingLog>;
type Bodies = NonNullable<ProviderProfile["bodies"]>;

const SEND = /\/v1\/airtime$/;
const LOOKUP = /\/v1\/airtime\/\{[^}]+\}$/;
const BALANCE = /\/v1\/balance$/;
const ID = /^(id|transactionid|txnid|orderid|orderno|ordernumber)$/i;
const REFERENCE = /^(reference|ref|clientref|clientreference|merchantreference|externalreference)$/i;
const STATUS = /status|state|phase|stage/i;
const MESSAGE = /^(message|note|text|detail|description)$/i;
const AMOUNT = /^(amount|value)$/i;
const BALANCE_NAMES = /balance|funds|float|available/i;

/** The best leaf of `leaves` by `fits`; several fitting are listed as an ambiguity. */
function pick(log: Log, path: string, leaves: readonly SchemaLeaf[], fits: (leaf: SchemaLeaf) => boolean) {
  const found = leaves.filter(fits);
  if (found.length > 1)
    log.miss(
      `${path}: ambiguous, took ${found[0]?.pointer} (candidates ${found.map((leaf) => leaf.pointer).join(", ")})`,
    );
  return found[0];
}

function bodyPointers(log: Log, prefix: string, leaves: readonly SchemaLeaf[], numericStatus: boolean) {
  const at = (path: string, fits: (leaf: SchemaLeaf) => boolean) => {
    const leaf = pick(log, `${prefix}.${path}`, leaves, fits);
    if (leaf !== undefined) log.note(["bodies", prefix, path], `the document's property ${leaf.name}`);
    return leaf?.pointer;
  };
  const status = numericStatus
    ? at("status", (leaf) => STATUS.test(leaf.name) || (/code/i.test(leaf.name) && leaf.schema.type === "integer"))
    : at("status", (leaf) => STATUS.test(leaf.pointer) && Array.isArray(leaf.schema.enum));
  return {
    id: at("id", (leaf) => ID.test(leaf.name)),
    reference: at("reference", (leaf) => REFERENCE.test(leaf.name)),
    status,
    ...(numericStatus
      ? { message: at("message", (leaf) => MESSAGE.test(leaf.name)) }
      : { amount: at("amount", (leaf) => AMOUNT.test(leaf.name)) }),
  };
}

const defined = <T extends Json>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

/** A status's class from the words that describe it, reversal and refund first. */
function classOf(text: string): ProfileStatusClass | undefined {
  if (/revers|clawed|undone|taken back/.test(text)) return "reversed";
  if (/refund|reject|declin|fail|expire|timed.?out|never answered/.test(text)) return "failed";
  if (/queue|processing|pending|accepted|not yet|with the network/.test(text)) return "pending";
  if (/deliver|done|success|complete/.test(text)) return "success";
  return undefined;
}

const normal = (text: string) => text.toLowerCase().replaceAll(/[_-]/g, " ").trim();

function statuses(
  log: Log,
  document: OpenApiDocument,
  lookupStatus: SchemaLeaf | undefined,
  sendStatus: SchemaLeaf | undefined,
) {
  const words = (lookupStatus?.schema.enum ?? []) as unknown[];
  if (words.length === 0 || !words.every((word) => typeof word === "string")) {
    log.miss("statuses: the lookup's status has no enum of words in the document");
    return undefined;
  }
  const said = `${String(lookupStatus?.schema.description ?? "")}`;
  const sendText = [sendStatus?.schema.description, ...document.responses(SEND).map((response) => response.description)]
    .filter((text) => typeof text === "string")
    .join("\n");
  const codes = new Map<string, number>();
  for (const match of sendText.matchAll(/(\d+)\s+([A-Za-z][A-Za-z_ ]*?)(?=[,.;)\n]|$)/g)) {
    codes.set(normal(match[2] as string), Number(match[1]));
  }
  const table = (words as string[]).flatMap((word) => {
    const line = new RegExp(`^\\s*${word}\\s*:(.*)$`, "m").exec(said)?.[1] ?? "";
    const cls = classOf(`${normal(word)} ${line.toLowerCase()}`);
    const code = codes.get(normal(word));
    if (cls === undefined || code === undefined) {
      log.miss(
        `statuses: ${word} (${cls === undefined ? "no class in its description" : "no number in the send answer's description"})`,
      );
      return [];
    }
    log.note(["statuses", "table"], `${word}: ${code}, ${cls}, from the enum and its description`);
    return [{ code, word, class: cls }];
  });
  return table.some((entry) => entry.code === 0 && entry.class === "pending")
    ? { values: "word" as const, table }
    : undefined;
}

type ErrorKind = "invalidInput" | "unauthorized" | "insufficientBalance" | "notFound" | "wrongMethod";

/** Which refusal a response describes, by its status and its words. */
function kindOf(path: "send" | "lookup", status: number, description: string): ErrorKind | undefined {
  const text = description.toLowerCase();
  if (status === 409) return undefined;
  if (status === 401 || status === 403 || /token/.test(text)) return "unauthorized";
  if (status === 405 || /method/.test(text)) return "wrongMethod";
  if (status === 402 || /insufficient|too low/.test(text)) return "insufficientBalance";
  if (path === "lookup" && status === 404) return "notFound";
  if (path === "send" && status >= 400 && status < 500) return "invalidInput";
  return undefined;
}

function errors(log: Log, document: OpenApiDocument) {
  const http: Record<string, number> = {};
  const codes: Record<string, string> = {};
  let codeLeaf: SchemaLeaf | undefined;
  let messageLeaf: SchemaLeaf | undefined;
  for (const [path, pattern] of [
    ["send", SEND],
    ["lookup", LOOKUP],
  ] as const) {
    for (const response of document.responses(pattern)) {
      const status = Number(response.status);
      const kind = kindOf(path, status, response.description);
      if (kind === undefined || (status === 200 && kind !== "insufficientBalance") || http[kind] !== undefined)
        continue;
      const leaves = document.leaves(response.schema);
      const code = leaves.find((leaf) =>
        (leaf.schema.enum as unknown[] | undefined)?.includes("idempotency_payload_mismatch"),
      );
      codeLeaf ??= code;
      messageLeaf ??=
        code === undefined
          ? undefined
          : leaves.find(
              (leaf) =>
                /message|detail|hint/i.test(leaf.name) && leaf.pointer.startsWith(code.pointer.replace(/[^/]*$/, "")),
            );
      http[kind] = status;
      log.note(
        ["http", kind],
        `the ${response.status} response of ${path === "send" ? "POST" : "GET"}: "${response.description.trim().split("\n")[0]}"`,
      );
      const named =
        code === undefined
          ? undefined
          : (valueAt(response.example, code.pointer) ??
            (code.schema.enum as string[]).find((value) => response.description.includes(value)));
      if (typeof named === "string" && kind !== "wrongMethod") {
        codes[kind] = named;
        log.note(["errorCodes", kind], `the code of the ${response.status} response's example or description`);
      }
    }
  }
  if (codeLeaf === undefined) log.miss("bodies.error: no error schema names idempotency_payload_mismatch");
  const errorBody =
    codeLeaf === undefined ? undefined : defined({ code: codeLeaf.pointer, message: messageLeaf?.pointer });
  return { http, codes, errorBody };
}

function webhooks(log: Log, document: OpenApiDocument) {
  const hook = document.webhooks()[0];
  if (hook === undefined) {
    log.miss("webhooks: the document describes none");
    return undefined;
  }
  const headers = ((hook.parameters ?? []) as unknown[])
    .map((parameter) => document.resolve(parameter))
    .filter((parameter) => parameter.in === "header")
    .map((parameter) => ({ name: String(parameter.name), text: String(parameter.description ?? "") }));
  const signature = headers.find((header) => /hmac/i.test(header.text));
  const timestamp =
    signature === undefined
      ? undefined
      : headers.find((header) => header !== signature && signature.text.includes(header.name));
  const signing =
    signature === undefined
      ? undefined
      : defined({
          scheme: "hmac" as const,
          header: signature.name,
          hash: /sha-?512/i.test(signature.text) ? ("sha512" as const) : ("sha256" as const),
          encoding: /base64/i.test(signature.text) ? ("base64" as const) : ("hex" as const),
          prefix: /`([A-Za-z0-9]+=)`/.exec(signature.text)?.[1],
          signed: timestamp === undefined ? ("body" as const) : ("timestamp.body" as const),
          timestampHeader: timestamp?.name,
        });
  if (signing !== undefined) log.note(["webhooks", "signing"], `the ${signing.header} header's description`);
  const media = document.resolve(document.resolve(hook.requestBody).content);
  const json = Object.keys(media).find((name) => /json/i.test(name));
  const body = document.leaves(json === undefined ? undefined : document.resolve(document.resolve(media[json]).schema));
  const statusLeaf = body.find((leaf) => STATUS.test(leaf.pointer) && Array.isArray(leaf.schema.enum));
  const branch = body.filter((leaf) => leaf.branch === statusLeaf?.branch);
  const unique = /unique per event|per event|delivery/i;
  const idHeader = headers.find((header) => header !== signature && unique.test(header.text));
  const idField = branch.find((leaf) => unique.test(String(leaf.schema.description ?? "")));
  const eventLeaf = branch.find(
    (leaf) =>
      leaf.schema.const !== undefined ||
      (Array.isArray(leaf.schema.enum) && leaf !== statusLeaf && !STATUS.test(leaf.pointer)),
  );
  const values =
    eventLeaf === undefined
      ? []
      : eventLeaf.schema.const !== undefined
        ? [String(eventLeaf.schema.const)]
        : (eventLeaf.schema.enum as string[]).filter((value) => /status|update|order|txn/.test(value));
  const others = body
    .filter((leaf) => leaf.pointer === eventLeaf?.pointer)
    .flatMap((leaf) =>
      leaf.schema.const !== undefined ? [String(leaf.schema.const)] : ((leaf.schema.enum ?? []) as string[]),
    )
    .filter((value) => !values.includes(value));
  if (eventLeaf !== undefined) log.note(["webhooks", "event"], `the ${eventLeaf.name} the order-status body carries`);
  return {
    body: bodyPointers(
      log,
      "webhook",
      branch.filter((leaf) => leaf !== idField),
      false,
    ),
    webhooks: defined({
      ...(eventLeaf === undefined || values.length === 0 ? {} : { event: { pointer: eventLeaf.pointer, values } }),
      ...(idHeader !== undefined
        ? { deliveryId: { header: idHeader.name } }
        : idField !== undefined
          ? { deliveryId: { pointer: idField.pointer } }
          : {}),
      signing,
    }),
    setAside: others,
  };
}

/**
 * @example
 * const inferred = inferFromOpenApi(parseYaml(await readFile("acme.openapi.yaml", "utf8")));
 */
export function inferFromOpenApi(raw: Json): InferredProfile {
  const document = openApiDocument(raw);
  const log = createFindingLog();
  const send = document.leaves(document.bodySchema(SEND, "post", "200"));
  const lookup = document.leaves(document.bodySchema(LOOKUP, "get", "200"));
  const balance = document.leaves(document.bodySchema(BALANCE, "get", "200"));
  const order = bodyPointers(log, "order", send, true);
  const lookupBody = bodyPointers(log, "lookup", lookup, false);
  const funds = pick(
    log,
    "balance.amount",
    balance,
    (leaf) => BALANCE_NAMES.test(leafText(leaf)) && /number|string/.test(String(leaf.schema.type)),
  );
  const amountLeaf = lookup.find((leaf) => "amount" in lookupBody && leaf.pointer === lookupBody.amount);
  const bodies: Bodies = defined({
    order: defined(order),
    lookup: defined(lookupBody),
    ...(funds === undefined ? {} : { balance: { amount: funds.pointer } }),
  });
  const profile: ProviderProfile = {
    profile: 1,
    bodies,
    money: amountLeaf?.schema.type === "string" ? "string" : "number",
  };
  const table = statuses(
    log,
    document,
    lookup.find((leaf) => leaf.pointer === lookupBody.status),
    send.find((leaf) => leaf.pointer === order.status),
  );
  if (table !== undefined) profile.statuses = table;
  const refusals = errors(log, document);
  if (refusals.errorBody !== undefined) profile.bodies = { ...profile.bodies, error: refusals.errorBody };
  if (Object.keys(refusals.http).length > 0) profile.http = refusals.http;
  if (Object.keys(refusals.codes).length > 0) profile.errorCodes = refusals.codes;
  const hooks = webhooks(log, document);
  if (hooks !== undefined) {
    profile.bodies = { ...profile.bodies, webhook: defined(hooks.body) };
    profile.webhooks = hooks.webhooks;
  }
  const domain = domainFromSpec(raw);
  if (domain !== undefined) {
    profile.domain = domain;
    log.note(["domain"], "the send-airtime request schema");
  } else log.miss("domain: the request schema states no bounds");
  return { profile, notes: log.notes, missing: log.missing, setAside: hooks?.setAside ?? [] };
}

// Reading the document: `$ref`s followed, each operation's bodies found by
// path and method, and a schema flattened into its leaves (a JSON pointer
// per scalar field, array items at index 0, every branch of
// oneOf/anyOf/allOf at the same place), with the property's name, type,
// enum or const and description.

interface SchemaLeaf {
  readonly pointer: string;
  readonly name: string;
  readonly schema: Json;
  /** The branch of a oneOf/anyOf it was found in, when the body has several. */
  readonly branch: number | undefined;
}

interface OpenApiDocument {
  /** The node a `$ref` names (chains followed); any other node as it is. */
  resolve(node: unknown): Json;
  /** The JSON schema of an operation's request (`status` "request") or of one of its responses. */
  bodySchema(path: RegExp, method: string, status: string): Json | undefined;
  /** Every response of the operations under `path` matching, with the status code and description. */
  responses(
    path: RegExp,
  ): { method: string; status: string; description: string; schema: Json | undefined; example: unknown }[];
  /** The webhook operations (3.1 `webhooks`, or the `x-webhooks` extension of 3.0). */
  webhooks(): Json[];
  leaves(schema: Json | undefined): SchemaLeaf[];
  readonly raw: Json;
}

const escape = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1");

function openApiDocument(raw: Json): OpenApiDocument {
  const resolve = (node: unknown): Json => resolveRef(raw, node);
  const jsonOf = (content: unknown): { schema: Json | undefined; example: unknown } => {
    const media = resolve(content);
    const name = Object.keys(media).find((candidate) => /json/i.test(candidate));
    const entry = name === undefined ? undefined : resolve(media[name]);
    return { schema: entry === undefined ? undefined : resolve(entry.schema), example: entry?.example };
  };
  const operations = (path: RegExp) =>
    Object.entries(resolve(raw.paths)).flatMap(([name, item]) =>
      path.test(name)
        ? Object.entries(resolve(item)).flatMap(([method, operation]) =>
            ["get", "post", "put", "delete", "patch"].includes(method)
              ? [{ method, operation: resolve(operation) }]
              : [],
          )
        : [],
    );

  function leaves(schema: Json | undefined, pointer = "", name = "", branch?: number, depth = 0): SchemaLeaf[] {
    if (schema === undefined || depth > 12) return [];
    const node = resolve(schema);
    const branches = [...asList(node.oneOf), ...asList(node.anyOf)];
    if (branches.length > 0) {
      return branches.flatMap((child, index) => leaves(resolve(child), pointer, name, branch ?? index, depth + 1));
    }
    const all = asList(node.allOf).flatMap((child) => leaves(resolve(child), pointer, name, branch, depth + 1));
    if (node.type === "array" || node.items !== undefined) {
      return [...all, ...leaves(resolve(node.items), `${pointer}/0`, name, branch, depth + 1)];
    }
    const properties = resolve(node.properties);
    if (Object.keys(properties).length > 0) {
      return [
        ...all,
        ...Object.entries(properties).flatMap(([key, child]) =>
          leaves(resolve(child), `${pointer}/${escape(key)}`, key, branch, depth + 1),
        ),
      ];
    }
    return all.length > 0 ? all : [{ pointer, name, schema: node, branch }];
  }

  return {
    raw,
    resolve,
    bodySchema(path, method, status) {
      const found = operations(path).find((operation) => operation.method === method)?.operation;
      if (found === undefined) return undefined;
      if (status === "request") return jsonOf(resolve(found.requestBody).content).schema;
      return jsonOf(resolve(resolve(found.responses)[status]).content).schema;
    },
    responses(path) {
      return operations(path).flatMap(({ method, operation }) =>
        Object.entries(resolve(operation.responses)).map(([status, response]) => {
          const resolved = resolve(response);
          return {
            method,
            status,
            description: typeof resolved.description === "string" ? resolved.description : "",
            ...jsonOf(resolved.content),
          };
        }),
      );
    },
    webhooks() {
      const hooks = resolve(raw.webhooks ?? raw["x-webhooks"]);
      return Object.values(hooks).flatMap((item) => {
        const post = resolve(item).post;
        return post === undefined ? [] : [resolve(post)];
      });
    },
    leaves: (schema) => leaves(schema),
  };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What a leaf says of itself: its name, its description and its enum, lower-cased, for matching by words. */
function leafText(leaf: SchemaLeaf): string {
  const description = typeof leaf.schema.description === "string" ? leaf.schema.description : "";
  return `${leaf.name} ${description}`.toLowerCase();
}

// `--from-target` with `--from-openapi`: the probe confirms or corrects the
// document. What the probe found wins, field by field, and a field where
// the two disagree says so; the document completes what no probe order
// could show: the statuses the orders never reached, the error statuses
// the probe could not provoke, and the domain.

function mergedBodies(probed: Bodies, documented: Bodies, notes: FieldNote[]): Bodies {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const body of new Set([...Object.keys(documented), ...Object.keys(probed)])) {
    const fromProbe = (probed as Record<string, Record<string, unknown> | undefined>)[body] ?? {};
    const fromDocument = (documented as Record<string, Record<string, unknown> | undefined>)[body] ?? {};
    for (const [field, value] of Object.entries(fromProbe)) {
      const said = fromDocument[field];
      if (said === undefined) continue;
      const how = said === value ? "confirmed by the document" : `the probe corrected the document's ${String(said)}`;
      notes.push({ path: ["bodies", body, field], how });
    }
    merged[body] = { ...fromDocument, ...fromProbe };
  }
  return merged as Bodies;
}

export function combineInferences(probed: InferredProfile, documented: InferredProfile): InferredProfile {
  const notes: FieldNote[] = [...probed.notes];
  const profile: ProviderProfile = { ...documented.profile, ...probed.profile };
  profile.bodies = mergedBodies(probed.profile.bodies ?? {}, documented.profile.bodies ?? {}, notes);
  const seen = probed.profile.statuses?.table ?? [];
  const unseen = (documented.profile.statuses?.table ?? []).filter(
    (entry) => !seen.some((probedEntry) => probedEntry.word === entry.word || probedEntry.code === entry.code),
  );
  if (probed.profile.statuses !== undefined || documented.profile.statuses !== undefined) {
    profile.statuses = { ...documented.profile.statuses, ...probed.profile.statuses, table: [...seen, ...unseen] };
    for (const entry of unseen) {
      notes.push({
        path: ["statuses", "table"],
        how: `${entry.word ?? entry.code}: from the document, no probe order reached it`,
      });
    }
  }
  profile.http = { ...documented.profile.http, ...probed.profile.http };
  profile.errorCodes = { ...documented.profile.errorCodes, ...probed.profile.errorCodes };
  if (documented.profile.domain !== undefined) {
    profile.domain = documented.profile.domain;
    notes.push({ path: ["domain"], how: "the document's request schema" });
  }
  const completed = /no probe order reached one|^domain:/;
  return {
    profile,
    notes,
    missing: [
      ...probed.missing.filter((what) => !completed.test(what)),
      ...documented.missing.map((what) => `in the document, ${what}`),
    ],
    setAside: [...new Set([...probed.setAside, ...documented.setAside])],
  };
}
