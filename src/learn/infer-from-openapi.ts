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
 */
import type { ProfileStatusClass, ProviderProfile } from "../contract/provider-profile/schema.ts";
import { domainFromSpec } from "../harness/spec-domain.ts";
import { createFindingLog } from "./inference.ts";
import type { InferredProfile } from "./infer-from-target.ts";
import { leafText, openApiDocument, type OpenApiDocument, type SchemaLeaf } from "./openapi-schema.ts";
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
