import { fc, it } from "@fast-check/vitest";
import { expect } from "vitest";
import { createRecordPacker } from "../../src/store/record-packer.ts";
import { order } from "./store-contract.ts";

const packer = createRecordPacker<unknown>(order("ord_sample", "demo", "ref-sample"));

it.prop([fc.jsonValue()])("gives back any JSON record it packed, equal and frozen all the way down", (record) => {
  const unpacked = packer.unpack(packer.pack(record));
  expect(unpacked).toEqual(JSON.parse(JSON.stringify(record)));
  const frozen = (value: unknown): boolean =>
    value === null || typeof value !== "object" || (Object.isFrozen(value) && Object.values(value).every(frozen));
  expect(frozen(unpacked)).toBe(true);
});

it("packs a record like its sample into a small part of its JSON", () => {
  const record = { ...order("ord_4k2m9x7q1w8e5r3t6y0u", "demo", "invoice-20931"), amountCents: 25_000 };
  const packed = packer.pack(record);
  expect(packed.length).toBeLessThan(JSON.stringify(record).length / 3);
  expect(packer.unpack(packed)).toEqual(record);
});
