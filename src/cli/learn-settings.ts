/**
 * `learn`'s flags, read once: one table of defaults and the frozen settings
 * the command runs with, or what is wrong with the command line.
 */
import { parseArgs } from "node:util";
import { parseDuration } from "../contract/duration.ts";
import { DEFAULT_ACCOUNTS } from "../harness/accounts.ts";
import { parseListen } from "../harness/listen-address.ts";

const LEARN_DEFAULTS = Object.freeze({
  /**
   * Runs of the comparison that calibrates: about 3.7 orders a run, so 40 runs
   * place about 150 orders, enough to see an outcome of 4 % (missed with
   * probability 0.96^150 ≈ 0.2 %) and to fit the timing's p95.
   */
  runs: 40,
  settle: "60s",
  timeout: "10s",
  account: DEFAULT_ACCOUNTS[0] as string,
});

export const LEARN_USAGE = `usage: airtime-harness learn --target URL --token TOKEN --out DIR [--other-token TOKEN]
                             [--from-openapi FILE] [--listen HOST:PORT --webhook-secret SECRET]
                             [--budget KES] [--runs N] [--seed N] [--settle DUR] [--timeout DUR]

Probes the target for its provider profile (with --from-openapi, the document's guesses are
confirmed or corrected by the probe), compares it with a simulator speaking that profile
(${LEARN_DEFAULTS.runs} runs by default: about 150 orders, enough to see a 4 % outcome), and writes
DIR/provider.yaml and DIR/simulator.json, fitted to the target's timing and outcome mix.
\`airtime-harness serve --config DIR/simulator.json\` then runs the twin. --budget bounds what the
probe and the comparison may spend together. Exit 0 written, 1 the probe failed, 2 usage error.`;

const OPTIONS = {
  target: { type: "string" },
  token: { type: "string" },
  "other-token": { type: "string" },
  "from-openapi": { type: "string" },
  listen: { type: "string" },
  "webhook-secret": { type: "string" },
  budget: { type: "string" },
  runs: { type: "string" },
  seed: { type: "string" },
  settle: { type: "string" },
  timeout: { type: "string" },
  account: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export interface LearnSettings {
  readonly target: string;
  readonly token: string;
  readonly otherToken: string | undefined;
  readonly document: string | undefined;
  readonly listen: { readonly host: string; readonly port: number } | undefined;
  readonly webhookSecret: string | undefined;
  readonly budget: number | undefined;
  readonly runs: number;
  readonly seed: number;
  readonly settleMs: number;
  readonly timeoutMs: number;
  readonly account: string;
  readonly out: string;
}

const whole = (text: string | undefined, fallback: number) =>
  text === undefined ? fallback : /^\d+$/.test(text) ? Number(text) : Number.NaN;

/** The settings, or what is wrong with the command line. */
export function learnSettings(args: string[]): LearnSettings | string {
  let values;
  try {
    values = parseArgs({ args, options: OPTIONS }).values;
  } catch (error) {
    return (error as Error).message;
  }
  const { target, token, out } = values;
  if (target === undefined || token === undefined || out === undefined) return "needs --target, --token and --out";
  if (!URL.canParse(target)) return `--target '${target}' is not a URL`;
  if ((values.listen === undefined) !== (values["webhook-secret"] === undefined)) {
    return "--listen and --webhook-secret go together";
  }
  let listen;
  try {
    listen = values.listen === undefined ? undefined : parseListen(values.listen);
  } catch {
    return `--listen '${values.listen}' is not HOST:PORT`;
  }
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) return `--budget '${values.budget}' is not an amount of KES`;
  const runs = whole(values.runs, LEARN_DEFAULTS.runs);
  const seed = whole(values.seed, Math.floor(Math.random() * 2 ** 31));
  if (!(runs >= 1)) return `--runs '${values.runs}' is not a whole number above 0`;
  if (!Number.isSafeInteger(seed)) return `--seed '${values.seed}' is not a whole number`;
  const settle = parseDuration(values.settle ?? LEARN_DEFAULTS.settle);
  const timeout = parseDuration(values.timeout ?? LEARN_DEFAULTS.timeout);
  if (!settle.ok) return `--settle: ${settle.error}`;
  if (!timeout.ok) return `--timeout: ${timeout.error}`;
  return Object.freeze({
    target,
    token,
    otherToken: values["other-token"],
    document: values["from-openapi"],
    listen,
    webhookSecret: values["webhook-secret"],
    budget,
    runs,
    seed,
    settleMs: settle.ms,
    timeoutMs: timeout.ms,
    account: values.account ?? LEARN_DEFAULTS.account,
    out,
  });
}
