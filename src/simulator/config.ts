/**
 * The YAML config file of `airtime-harness serve --config FILE`: customers
 * with their tokens, API keys, wallets and webhook; timing; failure rate;
 * limits; a status profile; idempotency retention; admin token; seed; clock.
 * Unknown keys are errors, so a typo never silently falls back to a default.
 */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { hasAtMostTwoDecimals } from "../contract/money.ts";
import { createStatusTable, type StatusDefinition } from "../contract/status-codes.ts";
import { parseDuration, TimingInputSchema } from "../domain/timing.ts";
import { ScenariosConfigSchema } from "../scenarios/options.ts";
import { WebhooksConfigSchema, webhookOptionsFromConfig } from "../webhooks/settings.ts";
import type { SimulatorOptions } from "./simulator-options.ts";

const Kes = z.number().min(0).refine(hasAtMostTwoDecimals, "must have at most 2 decimals");
const Token = z.string().regex(/^[\x21-\x7E]{8,256}$/, "must be 8–256 visible ASCII characters");

const DurationSchema = z.union([
  z.number().int().min(1).meta({ description: "Milliseconds." }),
  z.string().transform((text, ctx) => {
    const parsed = parseDuration(text);
    if (parsed.ok) return parsed.ms;
    ctx.issues.push({ code: "custom", message: parsed.error, input: text });
    return z.NEVER;
  }),
]);

export const CustomerConfigSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1–64 letters, digits, '_', '.' or '-'"),
    name: z.string().min(1).max(100).optional(),
    tokens: z.array(Token).optional(),
    token: Token.optional(),
    apiKey: Token.optional(),
    balance: Kes.optional().meta({ description: "Default wallet balance, KES (default 10,000)." }),
    currency: z.string().length(3).optional(),
    wallets: z.array(z.object({ shortcode: z.string().min(1).max(32), balance: Kes }).strict()).optional(),
    webhook: z
      .object({
        url: z.url({ protocol: /^https?$/ }),
        secrets: z
          .array(z.string().regex(/^whsec_[A-Za-z0-9+/=]{32,}$/, "must be a whsec_ secret"))
          .min(1)
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const StatusDefinitionSchema = z
  .object({
    code: z.number().int().min(0),
    message: z.string().min(1),
    class: z.enum(["pending", "success", "failed"]),
  })
  .strict();

export const SimulatorConfigSchema = z
  .object({
    clock: z.enum(["real", "virtual"]).optional(),
    seed: z.number().int().optional(),
    timing: TimingInputSchema.optional(),
    failureRate: z.number().min(0).max(1).optional(),
    adminToken: Token.optional(),
    tokenTtlSeconds: z.number().int().min(1).optional(),
    idempotencyRetention: DurationSchema.optional().meta({ description: "e.g. 24h (default), 90m, or ms." }),
    limits: z
      .object({
        minAmount: z.number().positive().optional(),
        maxAmount: z.number().positive().optional(),
        currencies: z.array(z.string().length(3)).min(1).optional(),
      })
      .strict()
      .optional(),
    statusProfile: z
      .union([z.array(StatusDefinitionSchema).min(1), z.string().min(1)])
      .optional()
      .meta({ description: "The status table: a list of {code, message, class}, or a YAML file holding one." }),
    demo: z
      .union([z.literal(false), z.object({ token: Token.optional(), balance: Kes.optional() }).strict()])
      .optional(),
    customers: z.array(CustomerConfigSchema).optional(),
    scenarios: ScenariosConfigSchema.optional(),
    webhooks: WebhooksConfigSchema.optional(),
  })
  .strict();

export type SimulatorConfig = z.output<typeof SimulatorConfigSchema>;

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: readonly string[],
  ) {
    super(`${file}: invalid config\n${issues.map((issue) => `  ${issue}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0
    ? "(top level)"
    : path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "");
}

/**
 * zod reports a failed union as "Invalid input"; say instead what the most
 * relevant branch objected to (the one that got past the type check).
 */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors.filter((branch) => branch.length > 0);
    const relevant =
      branches.find((branch) => !branch.every((i) => i.code === "invalid_type" && i.path.length === 0)) ?? branches[0];
    const first = relevant?.[0];
    if (first !== undefined) {
      const inner = describeIssue(first);
      return first.path.length === 0 ? inner : `${issuePath(first.path)}: ${inner}`;
    }
  }
  return issue.message;
}

function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issuePath(issue.path)}: ${describeIssue(issue)}`);
}

async function readYaml(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ConfigError(file, [`not valid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
}

async function loadStatusProfile(
  file: string,
  profile: SimulatorConfig["statusProfile"],
): Promise<StatusDefinition[] | undefined> {
  if (profile === undefined) return undefined;
  if (Array.isArray(profile)) return profile;
  const profileFile = resolve(dirname(file), profile);
  const parsed = z
    .array(StatusDefinitionSchema)
    .min(1)
    .safeParse(await readYaml(profileFile));
  if (!parsed.success) {
    throw new ConfigError(profileFile, formatIssues(parsed.error));
  }
  return parsed.data;
}

/** Config → `createSimulator` options (CLI flags are applied on top by `serve`). */
export function configToOptions(config: SimulatorConfig, statusProfile?: StatusDefinition[]): SimulatorOptions {
  return {
    ...(config.clock === undefined ? {} : { clock: config.clock }),
    ...(config.seed === undefined ? {} : { seed: config.seed }),
    ...(config.timing === undefined ? {} : { timing: config.timing }),
    ...(config.failureRate === undefined ? {} : { failureRate: config.failureRate }),
    ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }),
    ...(config.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: config.tokenTtlSeconds }),
    ...(config.idempotencyRetention === undefined ? {} : { idempotencyRetentionMs: config.idempotencyRetention }),
    ...(config.limits === undefined
      ? {}
      : {
          limits: {
            ...(config.limits.minAmount === undefined ? {} : { minAmount: config.limits.minAmount }),
            ...(config.limits.maxAmount === undefined ? {} : { maxAmount: config.limits.maxAmount }),
            ...(config.limits.currencies === undefined
              ? {}
              : { currencies: config.limits.currencies as [string, ...string[]] }),
          },
        }),
    ...(statusProfile === undefined ? {} : { statusTable: statusProfile }),
    ...(config.demo === undefined ? {} : { demo: config.demo }),
    ...(config.customers === undefined ? {} : { customers: config.customers }),
    ...(config.webhooks === undefined ? {} : { webhooks: webhookOptionsFromConfig(config.webhooks) }),
  };
}

/**
 * Reads and validates a config file. Errors name the file, the path inside
 * it and what is wrong.
 *
 * @example
 * const options = await loadSimulatorConfig("simulator.yaml");
 * const sim = await createSimulator(options);
 */
export async function loadSimulatorConfig(file: string): Promise<SimulatorOptions> {
  const raw = (await readYaml(file)) ?? {};
  const parsed = SimulatorConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(file, formatIssues(parsed.error));
  }
  const config = parsed.data;
  const ids = (config.customers ?? []).map((c) => c.id);
  const dup = ids.find((id, index) => ids.indexOf(id) !== index);
  if (dup !== undefined) throw new ConfigError(file, [`customers: the id ${JSON.stringify(dup)} is used twice`]);
  const { minAmount = 10, maxAmount = 10_000 } = config.limits ?? {};
  if (minAmount > maxAmount) throw new ConfigError(file, ["limits: minAmount must not exceed maxAmount"]);
  const profile = await loadStatusProfile(file, config.statusProfile);
  if (profile !== undefined) {
    try {
      createStatusTable(profile);
    } catch (error) {
      throw new ConfigError(file, [`statusProfile: ${(error as Error).message}`]);
    }
  }
  const options = configToOptions(config, profile);
  // Scenario files named in the config resolve from the config file's folder.
  return config.scenarios === undefined
    ? options
    : { ...options, scenarios: { ...config.scenarios, baseDir: dirname(resolve(file)) } };
}
