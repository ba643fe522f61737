/**
 * What a provider profile states a body holds, as pointers (its fields,
 * `extra`, `passthrough`, the webhook's event and delivery id), and the
 * members of a body that sit at none of them: how a test tells a dialect's
 * own answer from one that carries our spec's members.
 */
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";

export type StatedKind = "order" | "lookup" | "webhook" | "balance" | "error";

/** Each body kind's stated pointers. A body the file leaves out states our spec's whole body: undefined. */
export function statedPointers(file: ProviderProfile): Record<StatedKind, readonly string[] | undefined> {
  const { resolved } = compileProfile(file);
  const given = file.bodies ?? {};
  const of = (kind: StatedKind, pointers: readonly string[]): readonly string[] | undefined => {
    const body = given[kind] as { extra?: object; passthrough?: Record<string, string> } | undefined;
    if (body === undefined) return undefined;
    return [...pointers, ...Object.keys(body.extra ?? {}), ...Object.values(body.passthrough ?? {})];
  };
  const event = [resolved.event.pointer, ...("pointer" in resolved.deliveryId ? [resolved.deliveryId.pointer] : [])];
  return {
    order: of("order", Object.values(resolved.bodies.order)),
    lookup: of("lookup", Object.values(resolved.bodies.lookup)),
    webhook: of("webhook", [...Object.values(resolved.bodies.webhook), ...event]),
    balance: of("balance", Object.values(resolved.bodies.balance)),
    error: of("error", Object.values(resolved.bodies.error)),
  };
}

function escape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The pointers of `body`'s members that are neither stated nor inside a stated member, nor containers on the way to one. */
export function unstatedMembers(body: unknown, stated: readonly string[] | undefined): string[] {
  if (stated === undefined) return [];
  const found: string[] = [];
  const visit = (value: unknown, pointer: string) => {
    if (stated.includes(pointer)) return;
    const onTheWay = stated.some((known) => known.startsWith(`${pointer}/`));
    if (!onTheWay || typeof value !== "object" || value === null) {
      found.push(pointer);
      return;
    }
    for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${escape(key)}`);
  };
  if (typeof body === "object" && body !== null) {
    for (const [key, child] of Object.entries(body)) visit(child, `/${escape(key)}`);
  }
  return found;
}
