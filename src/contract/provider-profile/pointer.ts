/**
 * RFC 6901 JSON pointers, split once: reading a body through a profile walks
 * pre-split keys, with no parsing on the hot path.
 */

/** Reads the value at a pointer, or undefined when any step is missing. */
export type PointerReader = (document: unknown) => unknown;

/**
 * @example
 * const readId = compilePointer("/data/transactionId");
 * readId({ data: { transactionId: "TX1" } }); // "TX1"
 */
export function compilePointer(pointer: string): PointerReader {
  if (pointer === "") return (document) => document;
  const keys = pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replaceAll("~1", "/").replaceAll("~0", "~"));
  return (document) => {
    let node: unknown = document;
    for (const key of keys) {
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };
}
