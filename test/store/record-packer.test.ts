import { fc, it } from "@fast-check/vitest";
import { expect } from "vitest";
import type { Order } from "../../src/domain/model.ts";
import { createRecordPacker } from "../../src/store/record-packer.ts";
import { order } from "./store-contract.ts";

const packer = createRecordPacker<Record<string, unknown>, "id">({ ...order("ord_sample", "demo", "ref-sample") }, [
  "id",
]);

it.prop([fc.dictionary(fc.string(), fc.jsonValue()), fc.string()], {
  examples: [[JSON.parse(`{"__proto__": null}`) as Record<string, fc.JsonValue>, ""]],
})("gives back any JSON record it packed, equal and frozen all the way down", (fields, id) => {
  const record = { ...fields, id };
  const unpacked = packer.unpack(packer.pack(record), { id });
  expect(unpacked).toEqual(JSON.parse(JSON.stringify(record)));
  const frozen = (value: unknown): boolean =>
    value === null || typeof value !== "object" || (Object.isFrozen(value) && Object.values(value).every(frozen));
  expect(frozen(unpacked)).toBe(true);
});

it("packs a record like its sample into a small part of its JSON", () => {
  const record = { ...order("ord_4k2m9x7q1w8e5r3t6y0u", "demo", "invoice-20931"), amountCents: 25_000 };
  const packed = packer.pack(record);
  expect(packed.length).toBeLessThan(JSON.stringify(record).length / 3);
  expect(packer.unpack(packed, record)).toEqual(record);
});

it("leaves the held fields to their holder, in their places, at the cost of a back-reference", () => {
  const orders = createRecordPacker<Order, "id" | "reference">(order("ord_sample", "demo", "ref-sample"), [
    "id",
    "reference",
  ]);
  const record = order("ord_4k2m9x7q1w8e5r3t6y0u", "demo", "invoice-20931");
  const unpacked = orders.unpack(orders.pack(record), record);
  expect(unpacked).toEqual(record);
  expect(Object.keys(unpacked)).toEqual(Object.keys(record));
  // Characters deflate cannot shorten by themselves: a held field's value is not in what is packed.
  let state = 1;
  const noise = Array.from({ length: 200 }, () => ((state = (state * 48_271) % 2_147_483_647) % 36).toString(36));
  const long = { ...record, id: `ord_${noise.join("")}`, reference: noise.reverse().join("") };
  expect(orders.pack(long).length).toBeLessThan(orders.pack(record).length + 10);
  expect(orders.unpack(orders.pack(long), long)).toEqual(long);
});
