/**
 * Finding fields by value: every leaf of a JSON body with its RFC 6901
 * pointer, and the pointers whose value is a given string or amount. The
 * probe places an order with a reference and an amount no other field
 * carries, so where those values turn up names the fields.
 */
import { compilePointer } from "../contract/provider-profile/pointer.ts";

export interface Leaf {
  readonly pointer: string;
  readonly value: string | number | boolean | null;
}

const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** Every leaf of a JSON document, depth first, with its pointer. */
export function leavesOf(document: unknown, prefix = ""): Leaf[] {
  if (document === null || typeof document !== "object") {
    return prefix === "" && document === undefined ? [] : [{ pointer: prefix, value: document as Leaf["value"] }];
  }
  const entries = Array.isArray(document)
    ? document.map((value, index) => [String(index), value] as const)
    : Object.entries(document as Record<string, unknown>);
  return entries.flatMap(([key, value]) => leavesOf(value, `${prefix}/${escape(key)}`));
}

/** The pointers whose value is exactly this string. */
export function pointersOfText(document: unknown, text: string): string[] {
  return leavesOf(document)
    .filter((leaf) => leaf.value === text)
    .map((leaf) => leaf.pointer);
}

/** How an amount of KES is written at a pointer: a number or a decimal string. */
export type MoneyForm = "number" | "string";

/** The pointers whose value is this amount in KES, written as a number (150) or a decimal string ("150.00"). */
export function pointersOfAmount(document: unknown, kes: number): { pointer: string; form: MoneyForm }[] {
  return leavesOf(document).flatMap((leaf): { pointer: string; form: MoneyForm }[] => {
    if (typeof leaf.value === "number" && leaf.value === kes)
      return [{ pointer: leaf.pointer, form: "number" as const }];
    if (typeof leaf.value === "string" && /^-?\d+(\.\d+)?$/.test(leaf.value) && Number(leaf.value) === kes) {
      return [{ pointer: leaf.pointer, form: "string" as const }];
    }
    return [];
  });
}

/** A leaf's value as a number of KES, when it is money in either form. */
export function moneyOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/** The value at a pointer of a document (undefined when absent). */
export function valueAt(document: unknown, pointer: string): unknown {
  return compilePointer(pointer)(document);
}

/** The pointers present in both bodies whose values differ. */
export function changedPointers(before: unknown, after: unknown): string[] {
  const earlier = new Map(leavesOf(before).map((leaf) => [leaf.pointer, leaf.value]));
  return leavesOf(after)
    .filter((leaf) => earlier.has(leaf.pointer) && earlier.get(leaf.pointer) !== leaf.value)
    .map((leaf) => leaf.pointer);
}
