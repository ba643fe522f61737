/**
 * What `compare` is asked to run, normalised once from its flags: one table
 * of defaults, and the target, token, seed, runs, settle time and score
 * threshold read into one frozen object (or the reason they cannot be).
 * The comparison's own defaults are `COMPARE_DEFAULTS` in the comparison.
 */
import { parseDuration } from "../contract/duration.ts";

/** Every default of `compare`'s flags. */
export const COMPARE_RUN_DEFAULTS = Object.freeze({
  /** Sequences sent to each side. */
  runs: 20,
  /** How long an order may stay pending. */
  settle: "60s",
});

/** The flags as `parseArgs` read them: text, or absent. */
type CompareRunFlags = Readonly<Partial<Record<string, string>>>;

export interface CompareRun {
  readonly target: string;
  readonly token: string;
  readonly seed: number;
  readonly runs: number;
  readonly settleMs: number;
  /** The overall score (0–1) below which the command exits 1. */
  readonly failUnder: number | undefined;
}

function parseCount(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function parseScore(text: string | undefined): number | undefined | "bad" {
  if (text === undefined) return undefined;
  const score = Number(text.replace(/%$/, ""));
  return text.trim() !== "" && Number.isFinite(score) && score >= 0 && score <= 100 ? score / 100 : "bad";
}

/**
 * @example
 * compareRunFlags({ target: "https://sandbox.example", token: "T", runs: "5" }, {});
 * // { target, token: "T", seed: <random>, runs: 5, settleMs: 60000, failUnder: undefined }
 */
export function compareRunFlags(values: CompareRunFlags, env: NodeJS.ProcessEnv): CompareRun | string {
  const token = values.token ?? env.AIRTIME_TOKEN;
  if (values.target === undefined || token === undefined) return "needs --target and --token";
  if (!URL.canParse(values.target)) return `--target '${values.target}' is not a URL`;
  const seed = parseCount(values.seed, Math.floor(Math.random() * 2 ** 31));
  const runs = parseCount(values.runs, COMPARE_RUN_DEFAULTS.runs);
  const settle = parseDuration(values.settle ?? COMPARE_RUN_DEFAULTS.settle);
  const failUnder = parseScore(values["fail-under"]);
  if (seed === undefined) return `--seed '${values.seed}' is not a whole number`;
  if (runs === undefined || runs < 1) return `--runs '${values.runs}' is not a whole number above 0`;
  if (!settle.ok) return `--settle: ${settle.error}`;
  if (failUnder === "bad") return `--fail-under '${values["fail-under"]}' is not a percentage 0–100`;
  return Object.freeze({ target: values.target, token, seed, runs, settleMs: settle.ms, failUnder });
}
