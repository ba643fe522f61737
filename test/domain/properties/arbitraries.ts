/** Generators shared by the domain properties. */
import fc from "fast-check";
import type { Service } from "../../../src/contract/operators.ts";

/** A Safaricom national number (so the service is always detectable). */
export const safaricomNsn = fc
  .tuple(fc.constantFrom("70", "71", "72", "79", "11"), fc.stringMatching(/^\d{7}$/))
  .map(([prefix, rest]) => `${prefix}${rest}`);

/** The four written forms of one number: `+254…`, `254…`, `0…`, bare. */
export function writtenForm(nsn: string, form: number): string {
  switch (form % 4) {
    case 0:
      return `+254${nsn}`;
    case 1:
      return `254${nsn}`;
    case 2:
      return `0${nsn}`;
    default:
      return nsn;
  }
}

export const formIndex = fc.integer({ min: 0, max: 3 });

export const OTHER_SERVICES: readonly Service[] = ["airtel", "telkom", "jtl", "equitel"];

export const lifecycle = fc.record({
  delayMs: fc.integer({ min: 0, max: 3 * 3_600_000 }),
  failureRate: fc.constantFrom(0, 0.5, 1),
  seed: fc.integer({ min: 0, max: 1_000 }),
});
