/**
 * Failures as code: a shrunk counterexample written as a standalone vitest
 * file. The file holds the failure as data (check, property, seed, path and
 * the run's options that are not secrets) and calls `replayFailure` from the
 * package's public `airtime-harness/testing` entry, so it runs in any
 * project that installed the package, and `airtime-harness replay FILE` runs
 * the same data without vitest.
 */
import { z } from "zod";
import { ProviderProfileSchema } from "../contract/provider-profile/schema.ts";
import type { CheckName } from "./checks.ts";
import { type ContractOptions, ContractOptionsSchema } from "./contract-options.ts";
import { PROPERTY_NAMES } from "./property.ts";
import type { CheckFailureReport } from "./report.ts";

/** The run's options a replay needs; tokens and secrets never, they come from the environment. */
const EmittedRunSchema = ContractOptionsSchema.pick({
  target: true,
  adminUrl: true,
  timingMs: true,
  maxCommands: true,
  budget: true,
  accounts: true,
  webhookListen: true,
  webhookUrl: true,
  finalTimeoutMs: true,
  webhookTimeoutMs: true,
  requestTimeoutMs: true,
  maxWaitMs: true,
  validateWithPrism: true,
  sharedAccount: true,
  profile: true,
  specFile: true,
}).extend({ provider: ProviderProfileSchema.optional() });

export const EmittedFailureSchema = z.object({
  check: z.string(),
  property: z.enum(PROPERTY_NAMES),
  message: z.string(),
  seed: z.int(),
  path: z.string(),
  run: EmittedRunSchema,
});

export type EmittedFailure = z.output<typeof EmittedFailureSchema>;

/** The failure as the file stores it: the run's options stripped of every secret. */
export function emittedFailureOf(failure: CheckFailureReport, options: ContractOptions): EmittedFailure {
  return {
    check: failure.check,
    property: failure.property,
    message: failure.message,
    seed: failure.seed,
    path: failure.path,
    run: EmittedRunSchema.parse(options),
  };
}

/** One file per failed check: the check's name is unique in a report. */
export function emittedFileName(check: CheckName): string {
  return `${check}.test.ts`;
}

const DATA_START = "const failure = ";
const DATA_END = " as const;";

/**
 * The vitest file for one failure.
 *
 * @example
 * await writeFile(join(dir, emittedFileName(f.check)), formatEmittedTest(emittedFailureOf(f, options)));
 */
export function formatEmittedTest(failure: EmittedFailure): string {
  const where = failure.run.target ?? "an in-process simulator";
  return `/**
 * ${failure.check} failed: ${firstLine(failure.message)}
 *
 * The shrunk counterexample that \`airtime-harness contract\` found (property
 * ${failure.property}, seed ${failure.seed}), replayed against AIRTIME_TARGET
 * (default: ${where}). It fails while the target still breaks the check and
 * passes once it holds. Tokens come from AIRTIME_TOKEN, AIRTIME_OTHER_TOKEN,
 * AIRTIME_ADMIN_TOKEN and AIRTIME_WEBHOOK_SECRET. Without vitest:
 * \`airtime-harness replay <this file>\`.
 */
import { expect, test } from "vitest";
import { replayFailure } from "airtime-harness/testing";

${DATA_START}${JSON.stringify(failure, null, 2)}${DATA_END}

test(${JSON.stringify(`${failure.check} holds (${failure.property}, seed ${failure.seed})`)}, { timeout: 600_000 }, async () => {
  const outcome = await replayFailure(failure);
  expect(outcome.verdict).toBe(${JSON.stringify(`${failure.check} holds`)});
});
`;
}

/** The failure a file written by `formatEmittedTest` holds, or why it holds none. */
export function readEmittedTest(text: string): { ok: true; failure: EmittedFailure } | { ok: false; error: string } {
  const start = text.indexOf(DATA_START);
  const end = start === -1 ? -1 : text.indexOf(`}${DATA_END}`, start);
  if (start === -1 || end === -1) {
    return { ok: false, error: "no failure in it: expected a file written by `contract --emit-test`" };
  }
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start + DATA_START.length, end + 1));
  } catch (error) {
    return { ok: false, error: `its failure is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = EmittedFailureSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `its failure is malformed at ${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}` };
  }
  return { ok: true, failure: parsed.data };
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").replaceAll("*/", "* /");
}
