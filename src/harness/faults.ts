/**
 * The network faults the harness injects between itself and the target.
 * A fault is plain data, generated as part of a command, so fast-check
 * shrinking keeps it when it matters and drops it when it does not.
 */
import fc from "fast-check";

export type Fault =
  /** Forward the request, let the target answer, then reset the client's connection: the target committed, the client never heard. */
  | { readonly kind: "drop_response" }
  /** Reset the client's connection without forwarding: the target never saw the request. */
  | { readonly kind: "reset_before" }
  /** Wait before forwarding (wall-clock milliseconds). */
  | { readonly kind: "latency"; readonly ms: number };

/** The request header the fault proxy reads (and strips before forwarding). */
export const FAULT_HEADER = "x-harness-fault";
/** The request header that names a request, so the proxy can report what the target answered to it. */
export const REQUEST_ID_HEADER = "x-harness-request";

export function formatFault(fault: Fault): string {
  switch (fault.kind) {
    case "drop_response":
    case "reset_before":
      return fault.kind;
    case "latency":
      return `latency=${fault.ms}`;
    default:
      return assertNever(fault);
  }
}

export function parseFault(text: string | undefined): Fault | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (value === "drop_response" || value === "reset_before") return { kind: value };
  const latency = /^latency=(\d{1,6})$/.exec(value);
  if (latency?.[1] !== undefined) return { kind: "latency", ms: Number(latency[1]) };
  return undefined;
}

/** Short text for a step list: `lost response`, `reset before forwarding`, `+20ms`. */
export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case "drop_response":
      return "response lost after the target answered";
    case "reset_before":
      return "connection reset before forwarding";
    case "latency":
      return `+${fault.ms}ms latency`;
    default:
      return assertNever(fault);
  }
}

/** Any fault; latency kept small so runs stay fast. */
const faultArbitrary: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant<Fault>({ kind: "drop_response" }),
  fc.constant<Fault>({ kind: "reset_before" }),
  fc.integer({ min: 1, max: 25 }).map((ms): Fault => ({ kind: "latency", ms })),
);

/** No fault most of the time; shrinks towards no fault. */
export const optionalFaultArbitrary: fc.Arbitrary<Fault | undefined> = fc.option(faultArbitrary, {
  freq: 3,
  nil: undefined,
});

function assertNever(value: never): never {
  throw new Error(`unexpected fault ${JSON.stringify(value)}`);
}
