/**
 * How long an order stays pending: a fixed delay, a uniform range or a
 * lognormal distribution (long-tailed, like real operator latency). One
 * written syntax for the CLI, config files and scenarios:
 *
 * | text                | timing                                   |
 * |---------------------|------------------------------------------|
 * | `2s`, `500ms`, `1m` | fixed                                    |
 * | `1s..3s`            | uniform between the two bounds           |
 * | `lognormal:2s,0.5`  | lognormal with median 2 s and sigma 0.5  |
 * | `quantiles:p50=300ms,p95=1.2s,max=3s` | by quantiles (quantile-timing.ts) |
 *
 * Durations are a non-negative decimal number with a unit `ms`, `s`, `m` or
 * `h` (`0` alone is allowed). Sampled delays are whole milliseconds.
 */
import { z } from "zod";
import { DURATION_TEXT, DURATION_TEXT_PATTERN, parseDuration } from "../contract/duration.ts";
import type { Random } from "./ports.ts";
import {
  QUANTILE_KEY_TEXT,
  type QuantileTiming,
  keyOfQuantile,
  quantileTiming,
  sampleQuantiles,
} from "./quantile-timing.ts";

export type Timing =
  | { readonly kind: "fixed"; readonly ms: number }
  | { readonly kind: "uniform"; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: "lognormal"; readonly medianMs: number; readonly sigma: number }
  | QuantileTiming;

/** Pending → final after 2 s unless configured otherwise. */
export const DEFAULT_TIMING: Timing = { kind: "fixed", ms: 2000 };

export type TimingParseResult =
  { readonly ok: true; readonly timing: Timing } | { readonly ok: false; readonly error: string };

/*
 * What the parsers below accept, as regular expressions a JSON Schema
 * `pattern` can carry, so an editor flags `2 seconds` as the loader does.
 * They cannot say that a range is upside down or a median is 0: the parsers
 * still have the last word.
 */
const SIGMA_TEXT = String.raw`\s*\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*`;
const QUANTILE_TEXT = String.raw`\s*${QUANTILE_KEY_TEXT}\s*=${DURATION_TEXT}`;
/** The text `parseTiming` accepts: a duration, `min..max`, `lognormal:median,sigma` or `quantiles:p50=…,max=…`. */
export const TIMING_TEXT_PATTERN = new RegExp(
  `^(?:${DURATION_TEXT}|${DURATION_TEXT}\\.\\.${DURATION_TEXT}|\\s*lognormal:${DURATION_TEXT},${SIGMA_TEXT}` +
    `|\\s*quantiles:${QUANTILE_TEXT}(?:,${QUANTILE_TEXT})*)$`,
);

/**
 * Parses the timing syntax. Never throws: bad text gives `{ok: false, error}`.
 *
 * @example
 * parseTiming("2s");               // { ok: true, timing: { kind: "fixed", ms: 2000 } }
 * parseTiming("1s..3s");           // { ok: true, timing: { kind: "uniform", minMs: 1000, maxMs: 3000 } }
 * parseTiming("lognormal:2s,0.5"); // { ok: true, timing: { kind: "lognormal", medianMs: 2000, sigma: 0.5 } }
 */
export function parseTiming(text: string): TimingParseResult {
  const trimmed = text.trim();
  if (trimmed.startsWith("quantiles:")) return parseQuantiles(text, trimmed.slice("quantiles:".length).split(","));
  if (trimmed.startsWith("lognormal:")) {
    const parts = trimmed.slice("lognormal:".length).split(",");
    if (parts.length !== 2) return { ok: false, error: `"${text}": expected lognormal:<median>,<sigma>` };
    const median = parseDuration(parts[0] ?? "");
    if (!median.ok) return median;
    const sigmaText = (parts[1] ?? "").trim();
    const sigma = Number(sigmaText);
    if (sigmaText === "" || !Number.isFinite(sigma) || sigma < 0) {
      return { ok: false, error: `"${text}": sigma must be a number >= 0` };
    }
    if (median.ms <= 0) return { ok: false, error: `"${text}": the median must be above 0` };
    return { ok: true, timing: { kind: "lognormal", medianMs: median.ms, sigma } };
  }
  if (trimmed.includes("..")) {
    const parts = trimmed.split("..");
    if (parts.length !== 2) return { ok: false, error: `"${text}": expected <min>..<max>` };
    const min = parseDuration(parts[0] ?? "");
    if (!min.ok) return min;
    const max = parseDuration(parts[1] ?? "");
    if (!max.ok) return max;
    if (min.ms > max.ms) return { ok: false, error: `"${text}": the lower bound is above the upper bound` };
    return { ok: true, timing: { kind: "uniform", minMs: min.ms, maxMs: max.ms } };
  }
  const fixed = parseDuration(trimmed);
  if (!fixed.ok) return fixed;
  return { ok: true, timing: { kind: "fixed", ms: fixed.ms } };
}

/** `["p50=300ms", "max=3s"]` (or an object's entries) → a quantile timing. */
function parseQuantiles(text: string, parts: readonly string[]): TimingParseResult {
  const entries: [string, number][] = [];
  for (const part of parts) {
    const [key = "", value, ...rest] = part.split("=");
    if (value === undefined || rest.length > 0) return { ok: false, error: `"${text}": expected quantile=duration` };
    const duration = parseDuration(value);
    if (!duration.ok) return duration;
    entries.push([key.trim(), duration.ms]);
  }
  const parsed = quantileTiming(entries);
  return parsed.ok ? parsed : { ok: false, error: `"${text}": ${parsed.error}` };
}

/** Writes a timing back in the syntax `parseTiming` reads (durations in ms). */
export function formatTiming(timing: Timing): string {
  switch (timing.kind) {
    case "fixed":
      return `${timing.ms}ms`;
    case "uniform":
      return `${timing.minMs}ms..${timing.maxMs}ms`;
    case "lognormal":
      return `lognormal:${timing.medianMs}ms,${timing.sigma}`;
    case "quantiles":
      return `quantiles:${timing.points.map((point) => `${keyOfQuantile(point.q)}=${point.ms}ms`).join(",")}`;
    default:
      return assertNever(timing);
  }
}

/** A standard normal draw by the Box–Muller transform (two uniforms in, one normal out). */
function sampleStandardNormal(random: Random): number {
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const u1 = 1 - random.next();
  const u2 = random.next();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * A delay in whole milliseconds drawn from `timing`. Fixed timings draw
 * nothing from `random`; uniform and quantiles draw one number, lognormal two.
 *
 * @example
 * sampleDelay({ kind: "uniform", minMs: 1000, maxMs: 3000 }, createSeededRandom(1)); // 1000..3000
 */
export function sampleDelay(timing: Timing, random: Random): number {
  switch (timing.kind) {
    case "fixed":
      return timing.ms;
    case "uniform":
      // Inclusive of both bounds: there are max - min + 1 whole values.
      return timing.minMs + Math.floor(random.next() * (timing.maxMs - timing.minMs + 1));
    case "lognormal":
      return Math.max(0, Math.round(timing.medianMs * Math.exp(timing.sigma * sampleStandardNormal(random))));
    case "quantiles":
      return sampleQuantiles(timing, random.next());
    default:
      return assertNever(timing);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected timing ${JSON.stringify(value)}`);
}

const Milliseconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A timing as structured data (what `parseTiming` returns). */
export const TimingSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("fixed"), ms: Milliseconds }),
    z
      .object({ kind: z.literal("uniform"), minMs: Milliseconds, maxMs: Milliseconds })
      .refine((t) => t.minMs <= t.maxMs, { message: "minMs must not exceed maxMs", path: ["maxMs"] }),
    z.object({
      kind: z.literal("lognormal"),
      medianMs: Milliseconds.min(1),
      sigma: z.number().min(0).max(10),
    }),
    z
      .object({
        kind: z.literal("quantiles"),
        points: z.array(z.object({ q: z.number().min(0).max(1), ms: Milliseconds })).min(2),
      })
      .refine((t) => quantileTiming(t.points.map((point) => [keyOfQuantile(point.q), point.ms])).ok, {
        message: "points must run from q 0 to q 1, each q once, ms never decreasing",
        path: ["points"],
      }),
  ])
  .meta({ id: "Timing", description: "Pending → final delay: fixed, uniform range, lognormal or by quantiles." });

/**
 * A timing written as text (`2s`, `1s..3s`, `lognormal:2s,0.5`), parsed to a
 * `Timing`. It carries a transform, so generate JSON Schema from it with
 * `io: "input"`.
 */
export const TimingTextSchema = z
  .string()
  .transform((text, ctx): Timing => {
    const parsed = parseTiming(text);
    if (parsed.ok) return parsed.timing;
    ctx.issues.push({ code: "custom", message: parsed.error, input: text });
    return z.NEVER;
  })
  .meta({
    description:
      "Timing as text: `2s`, `500ms`, `1s..3s` (uniform), `lognormal:2s,0.5` (median, sigma) or " +
      "`quantiles:p50=300ms,p95=1.2s,max=3s`.",
    examples: ["2s", "1s..3s", "lognormal:2s,0.5", "quantiles:p50=300ms,p95=1.2s,max=3s"],
    pattern: TIMING_TEXT_PATTERN.source,
  });

const QuantileDurationSchema = z.union([
  z.string().regex(DURATION_TEXT_PATTERN, "must be a duration such as 300ms or 1.2s"),
  Milliseconds,
]);

/**
 * A timing by its quantiles, as a config file states it:
 * `{ quantiles: { p50: "300ms", p95: "1.2s", max: "3s" } }` (durations as
 * text or ms). `max` is required; `min` defaults to 0.
 */
const QuantilesObjectSchema = z
  .object({
    quantiles: z
      .record(z.string().regex(new RegExp(`^${QUANTILE_KEY_TEXT}$`), "must be min, max or pNN"), QuantileDurationSchema)
      .meta({ description: "Quantile (min, p10, p50, p95, p99.9, max …) → duration; max is required." }),
  })
  .strict()
  .transform((input, ctx): Timing => {
    const entries = Object.entries(input.quantiles).map(([key, value]): [string, number] => {
      const duration = typeof value === "number" ? { ok: true as const, ms: value } : parseDuration(value);
      return [key, duration.ok ? duration.ms : Number.NaN];
    });
    const parsed = quantileTiming(entries);
    if (parsed.ok) return parsed.timing;
    ctx.issues.push({ code: "custom", message: parsed.error, input, path: ["quantiles"] });
    return z.NEVER;
  })
  .meta({ description: "Pending → final delay by quantiles, drawn by linear interpolation between them." });

/** Every form, for config files: text, structured, or `{ quantiles: {…} }`. */
export const TimingInputSchema = z.union([TimingTextSchema, TimingSchema, QuantilesObjectSchema]);
