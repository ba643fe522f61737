/**
 * Settled records packed small: a retained final order, or a finished
 * webhook delivery with its attempts, is read rarely and never changes
 * until it is evicted, yet as objects it costs kilobytes of heap (a field
 * per slot, boxed timestamps, a body and a signature per attempt) and
 * thousands of objects for every collection to trace.
 *
 * Packed, a record is its JSON deflated against a preset dictionary (a
 * sample record of the same shape, so the field names and the common
 * values cost almost nothing), kept as one latin1 string on the heap: about
 * a tenth of the object's size, and one object for the collector. Reading
 * it back inflates and parses it (a few µs), and hands out a deeply frozen
 * copy, as the stores hand out every record. Records must be plain JSON
 * data, as everything the stores keep is (`--state-file` saves it as JSON).
 *
 * The fields the holder keeps anyway (ids, reference, status: what listings
 * filter on) are packed as 0 and end the dictionary instead, so what repeats
 * them (a delivery's body names its order, later times start like the
 * creation time) costs a back-reference.
 */
import { deflateRawSync, inflateRawSync, type ZlibOptions } from "node:zlib";

export interface RecordPacker<T, Held extends keyof T> {
  pack(record: T): string;
  /** `holder`: the held fields' values, as packed. */
  unpack(packed: string, holder: Pick<T, Held>): T;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * @param sample a typical record: the dictionary both directions use, so it
 *   must stay the same for as long as anything packed with it is kept.
 * @param held fields every record has and the caller keeps (written as 0, so keys keep their order).
 * @example
 * const packer = createRecordPacker(sampleOrder, ["id"]);
 * const packed = packer.pack(order); // ~60 characters for a ~400-character order
 * packer.unpack(packed, { id: order.id }); // a frozen copy equal to order
 */
export function createRecordPacker<T extends object, Held extends keyof T>(
  sample: T,
  held: readonly Held[],
): RecordPacker<T, Held> {
  const heldFields = new Set<PropertyKey>(held);
  /**
   * The record's JSON with the held fields as 0, in the record's key order. Copied key by key:
   * a spread of a frozen record takes V8's slow cloning path, and this runs for every record packed.
   */
  const text = (record: T): string => {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(record)) {
      const value = heldFields.has(key) ? 0 : record[key as keyof T];
      // Assigning `__proto__` would set the copy's prototype and drop the field from the JSON.
      if (key === "__proto__") Object.defineProperty(copy, key, { value, enumerable: true, writable: true });
      else copy[key] = value;
    }
    for (const field of held) if (!(field in copy)) copy[field as string] = 0;
    return JSON.stringify(copy);
  };
  const sampleText = text(sample);
  // A 4 KB window holds the dictionary and a record; zlib's default 32 KB window and 128 KB hash
  // table cost more to set up, on every call, than the record takes to deflate (half the time, measured).
  const options = (holder: Pick<T, Held>): ZlibOptions => ({
    dictionary: Buffer.from(sampleText + JSON.stringify(held.map((field) => holder[field]))),
    windowBits: 12,
    memLevel: 2,
  });
  return {
    pack: (record) => deflateRawSync(text(record), options(record)).toString("latin1"),
    unpack(packed, holder) {
      const record = JSON.parse(inflateRawSync(Buffer.from(packed, "latin1"), options(holder)).toString()) as T;
      for (const field of held) record[field] = holder[field];
      return deepFreeze(record);
    },
  };
}
