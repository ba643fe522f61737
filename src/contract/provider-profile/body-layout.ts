/**
 * Where a rendered body puts each value, compiled once from a profile's
 * pointers: a writer per field (its path pre-split), the container the
 * fields the profile does not name go into, and the per-field templates of
 * `extra`. The hot path copies values into place; no pointer is parsed per
 * request. A layout that keeps every field where our spec has it compiles
 * to the identity, so our spec's bodies leave unchanged, as the same object.
 * A dialect's body holds only the fields its profile states: the others are
 * left out, not moved beside the main field.
 * A container the renderer creates for an index segment (`/balances/0/…`)
 * is an array, as the provider writes it, unless the profile states otherwise.
 */

/** A value the simulator has for the body, by our spec's field name. */
export type SpecBody = Readonly<Record<string, unknown>>;

/** What a template may write besides the body's own values. */
export interface RenderContext {
  /** The order's creation time (ISO 8601), for `orderCreatedAt` templates. */
  readonly createdAt?: string | undefined;
  /** The webhook's delivery id, for a profile that carries it in the body. */
  readonly deliveryId?: string | undefined;
}

/** The profile's `extra` templates, and the delivery id a profile may place in the webhook body. */
export type ExtraTemplate =
  | { readonly uuid: true }
  | { readonly constant: unknown }
  | { readonly orderCreatedAt: true }
  | { readonly deliveryId: true };

export interface LayoutSpec {
  /** Our spec's field name → the pointer the profile writes it at. */
  readonly fields: Readonly<Record<string, string>>;
  /** The field whose container also takes every field the profile does not name, when they are kept. */
  readonly main: string;
  /** Whether the fields the profile does not name go beside `main` (our spec's body) or are left out (a dialect's). */
  readonly keepUnnamed: boolean;
  /** Changes a value on its way into the body (money as a string, a status as a word). */
  readonly convert?: Readonly<Record<string, (value: unknown, spec: SpecBody) => unknown>>;
  readonly extras?: Readonly<Record<string, ExtraTemplate>> | undefined;
  /** The kind of container to create at a pointer; by default an array where the next segment is an index. */
  readonly containers?: Readonly<Record<string, ContainerKind>> | undefined;
  /** Ids for `uuid` templates; injected so that tests and seeds decide them. */
  readonly newUuid: () => string;
}

export type Layout = (spec: SpecBody, context?: RenderContext) => unknown;

type Container = Record<string, unknown>;

/** The pointer's keys, `~1` and `~0` unescaped; "" is the body itself. */
export function pointerKeys(pointer: string): readonly string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** An array or an object: the kind of container a body holds at some pointer. */
export type ContainerKind = "array" | "object";

/** A segment that can only index an array when the container is ours to create: 0, 1, 2… */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Which kind of container to create at `keys[0..depth)` to hold `keys[depth]`:
 * what the profile states for that pointer, else an array for an index.
 */
export type KindOf = (keys: readonly string[], depth: number) => ContainerKind;

export function compileKindOf(stated: Readonly<Record<string, ContainerKind>> | undefined): KindOf {
  const byPointer = new Map(Object.entries(stated ?? {}));
  return (keys, depth) => {
    const pointer = keys
      .slice(0, depth)
      .map((key) => `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`)
      .join("");
    return byPointer.get(pointer) ?? (ARRAY_INDEX.test(keys[depth] as string) ? "array" : "object");
  };
}

/** The container at `keys` inside `body`, made on the way when missing. */
function containerAt(body: Container, keys: readonly string[], depth: number, kindOf: KindOf): Container {
  let node = body;
  for (let index = 0; index < depth; index += 1) {
    const key = keys[index] as string;
    const next = node[key];
    if (typeof next === "object" && next !== null) node = next as Container;
    else node = node[key] = kindOf(keys, index + 1) === "array" ? ([] as unknown as Container) : {};
  }
  return node;
}

type Put = (body: Container, value: unknown) => void;

function compilePut(pointer: string, kindOf: KindOf): Put {
  const keys = pointerKeys(pointer);
  const last = keys.at(-1);
  if (last === undefined) throw new RangeError('a body field cannot be written at the whole body (pointer "")');
  if (keys.length === 1) {
    return (body, value) => {
      body[last] = value;
    };
  }
  return (body, value) => {
    containerAt(body, keys, keys.length - 1, kindOf)[last] = value;
  };
}

function isIdentity(spec: LayoutSpec): boolean {
  const noConversions = spec.convert === undefined || Object.keys(spec.convert).length === 0;
  const noExtras = spec.extras === undefined || Object.keys(spec.extras).length === 0;
  const inPlace = Object.entries(spec.fields).every(([name, pointer]) => pointer === `/${name}`);
  return spec.keepUnnamed && noConversions && noExtras && inPlace;
}

function compileExtra(pointer: string, template: ExtraTemplate, newUuid: () => string, kindOf: KindOf) {
  const put = compilePut(pointer, kindOf);
  if ("uuid" in template) return (body: Container) => put(body, newUuid());
  if ("constant" in template) return (body: Container) => put(body, template.constant);
  if ("deliveryId" in template)
    return (body: Container, context: RenderContext | undefined) => put(body, context?.deliveryId ?? null);
  return (body: Container, context: RenderContext | undefined) => put(body, context?.createdAt ?? null);
}

/**
 * @example
 * const layout = compileLayout({ fields: { id: "/data/transactionId" }, main: "id", keepUnnamed: true, newUuid: randomUUID });
 * layout({ id: "TX1", service: "safaricom" }); // { data: { transactionId: "TX1", service: "safaricom" } }
 */
export function compileLayout(spec: LayoutSpec): Layout {
  if (isIdentity(spec)) return (body) => body;
  const kindOf = compileKindOf(spec.containers);
  const puts = new Map<string, Put>();
  for (const [name, pointer] of Object.entries(spec.fields)) puts.set(name, compilePut(pointer, kindOf));
  const convert = spec.convert ?? {};
  const mainKeys = pointerKeys(spec.fields[spec.main] ?? `/${spec.main}`);
  const companionDepth = Math.max(mainKeys.length - 1, 0);
  // A name a field already takes in the companions' container is the field's, never a companion's.
  const taken = new Set(
    Object.values(spec.fields)
      .map(pointerKeys)
      .filter(
        (keys) => keys.length === companionDepth + 1 && keys.slice(0, -1).join("/") === mainKeys.slice(0, -1).join("/"),
      )
      .map((keys) => keys.at(-1) as string),
  );
  const extras = Object.entries(spec.extras ?? {}).map(([pointer, template]) =>
    compileExtra(pointer, template, spec.newUuid, kindOf),
  );
  return (body, context) => {
    const rendered: Container = {};
    // Templates first: an envelope's own fields (`success: true`) lead, as providers write them.
    for (const extra of extras) extra(rendered, context);
    for (const name in body) {
      const value = body[name];
      if (value === undefined) continue;
      const put = puts.get(name);
      const converted =
        convert[name] === undefined ? value : (convert[name] as (v: unknown, s: SpecBody) => unknown)(value, body);
      if (put !== undefined) put(rendered, converted);
      else if (spec.keepUnnamed && !taken.has(name))
        containerAt(rendered, mainKeys, companionDepth, kindOf)[name] = converted;
    }
    return rendered;
  };
}
