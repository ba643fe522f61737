/**
 * `airtime-harness serve`: the simulator as a server. Settings come from, in
 * rising precedence: defaults, the config file, environment variables, flags.
 * Every flag is one entry of `SERVE_FLAGS` (name, env twin, help, how it
 * applies), so adding one is adding an entry.
 */
import { parseArgs } from "node:util";
import { hasAtMostTwoDecimals } from "../contract/money.ts";
import { parseTiming } from "../domain/timing.ts";
import { SCENARIO_SERVE_FLAGS } from "../scenarios/serve-flags.ts";
import { ConfigError, loadSimulatorConfig } from "../simulator/config.ts";
import { createSimulator, type Simulator } from "../simulator/create-simulator.ts";
import type { DemoCustomerOptions, SimulatorOptions } from "../simulator/simulator-options.ts";
import { WEBHOOK_SERVE_FLAGS } from "../webhooks/settings.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What the flags build up before the simulator starts. */
export interface ServeSettings {
  port: number;
  host: string;
  options: Mutable<SimulatorOptions>;
}

export interface ServeFlag {
  readonly name: string;
  readonly env: string;
  /** Placeholder for the value in `--help`. */
  readonly value: string;
  readonly help: string;
  /** May be given several times; each value is applied in turn. */
  readonly multiple?: boolean;
  /** Applies the value; returns an error message when it is not valid. */
  apply(value: string, settings: ServeSettings): string | undefined;
}

const VISIBLE_TOKEN = /^[\x21-\x7E]{8,256}$/;

function demoOf(settings: ServeSettings): Mutable<DemoCustomerOptions> {
  const demo = settings.options.demo;
  const next: Mutable<DemoCustomerOptions> = demo === false || demo === undefined ? {} : { ...demo };
  settings.options.demo = next;
  return next;
}

function tokenFlag(name: string, env: string, help: string, set: (s: ServeSettings, v: string) => void): ServeFlag {
  return {
    name,
    env,
    value: "TOKEN",
    help,
    apply(value, settings) {
      if (!VISIBLE_TOKEN.test(value)) return `--${name} must be 8–256 visible ASCII characters`;
      set(settings, value);
      return undefined;
    },
  };
}

/** The flag table. `--config` and `--help` are handled before it. */
export const SERVE_FLAGS: ServeFlag[] = [
  {
    name: "port",
    env: "AIRTIME_SIM_PORT",
    value: "N",
    help: "port to listen on (default 4010; 0 picks a free one)",
    apply(value, settings) {
      const port = Number(value);
      if (!/^\d+$/.test(value) || port > 65_535) return "--port must be an integer 0–65535";
      settings.port = port;
      return undefined;
    },
  },
  {
    name: "host",
    env: "AIRTIME_SIM_HOST",
    value: "HOST",
    help: "interface to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)",
    apply(value, settings) {
      if (value.trim() === "") return "--host must not be empty";
      settings.host = value;
      return undefined;
    },
  },
  {
    name: "clock",
    env: "AIRTIME_SIM_CLOCK",
    value: "real|virtual",
    help: "virtual: nothing happens until POST /_sim/clock/advance (default real)",
    apply(value, settings) {
      if (value !== "real" && value !== "virtual") return "--clock must be real or virtual";
      settings.options.clock = value;
      return undefined;
    },
  },
  {
    name: "timing",
    env: "AIRTIME_SIM_TIMING",
    value: "TIMING",
    help: "pending → final delay: 2s (default), 1s..3s, lognormal:2s,0.5",
    apply(value, settings) {
      const parsed = parseTiming(value);
      if (!parsed.ok) return `--timing: ${parsed.error}`;
      settings.options.timing = parsed.timing;
      return undefined;
    },
  },
  {
    name: "seed",
    env: "AIRTIME_SIM_SEED",
    value: "N",
    help: "seed of every random choice, for reproducible runs",
    apply(value, settings) {
      if (!/^-?\d{1,15}$/.test(value)) return "--seed must be an integer";
      settings.options.seed = Number(value);
      return undefined;
    },
  },
  {
    name: "failure-rate",
    env: "AIRTIME_SIM_FAILURE_RATE",
    value: "0..1",
    help: "share of orders that end 2 Failed (default 0)",
    apply(value, settings) {
      const rate = Number(value);
      if (value.trim() === "" || !(rate >= 0 && rate <= 1)) return "--failure-rate must be a number from 0 to 1";
      settings.options.failureRate = rate;
      return undefined;
    },
  },
  tokenFlag(
    "admin-token",
    "AIRTIME_SIM_ADMIN_TOKEN",
    "bearer token of the /_sim admin API (default: generated)",
    (s, v) => {
      s.options.adminToken = v;
    },
  ),
  tokenFlag("demo-token", "AIRTIME_SIM_DEMO_TOKEN", "the demo customer's bearer token (default: generated)", (s, v) => {
    demoOf(s).token = v;
  }),
  {
    name: "demo-balance",
    env: "AIRTIME_SIM_DEMO_BALANCE",
    value: "KES",
    help: "the demo customer's balance in KES (default 100000)",
    apply(value, settings) {
      const balance = Number(value);
      if (value.trim() === "" || !(balance >= 0) || !Number.isFinite(balance) || !hasAtMostTwoDecimals(balance)) {
        return "--demo-balance must be an amount >= 0 with at most 2 decimals";
      }
      demoOf(settings).balance = balance;
      return undefined;
    },
  },
  // Webhooks: --webhook-url, --webhook-secret, --webhook-schedule, --webhook-timeout.
  ...WEBHOOK_SERVE_FLAGS,
  // Scenarios: --scenario FILE|NAME, --scenario-for CUSTOMER=FILE|NAME (both repeatable), --magic-accounts.
  ...SCENARIO_SERVE_FLAGS,
];

const CONFIG_ENV = "AIRTIME_SIM_CONFIG";

export function serveUsage(): string {
  const rows = [
    ["--config FILE", CONFIG_ENV, "YAML config: customers, tokens, wallets, timing, limits, status profile"],
    ...SERVE_FLAGS.map((flag) => [`--${flag.name} ${flag.value}`, flag.env, flag.help]),
    ["--help", "", "show this help"],
  ];
  const width = Math.max(...rows.map((r) => (r[0] as string).length));
  const envWidth = Math.max(...rows.map((r) => (r[1] as string).length));
  return [
    "usage: airtime-harness serve [options]",
    "",
    "Starts the stateful airtime simulator. Flags override environment variables,",
    "which override the config file.",
    "",
    ...rows.map(
      ([flag, env, help]) => `  ${(flag as string).padEnd(width)}  ${(env as string).padEnd(envWidth)}  ${help}`,
    ),
  ].join("\n");
}

export type ParsedServeArgs =
  | { readonly kind: "help" }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "settings"; readonly settings: ServeSettings };

/** Flags, environment and config → settings, or the reason they are not valid. */
export async function parseServeArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ParsedServeArgs> {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {
      config: { type: "string" },
      help: { type: "boolean" },
    };
    for (const flag of SERVE_FLAGS)
      options[flag.name] = { type: "string", ...(flag.multiple ? { multiple: true } : {}) };
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  if (values.help === true) return { kind: "help" };

  const settings: ServeSettings = { port: 4010, host: "127.0.0.1", options: {} };
  const configFile = (values.config as string | undefined) ?? env[CONFIG_ENV];
  if (configFile !== undefined && configFile !== "") {
    try {
      settings.options = { ...(await loadSimulatorConfig(configFile)) };
    } catch (error) {
      if (error instanceof ConfigError) return { kind: "error", message: error.message };
      throw error;
    }
  }
  for (const flag of SERVE_FLAGS) {
    const given = values[flag.name] as string | string[] | undefined;
    const fromFlag = given === undefined ? undefined : [given].flat();
    const fromEnv = env[flag.env];
    const list = fromFlag ?? (fromEnv === undefined || fromEnv === "" ? [] : [fromEnv]);
    for (const value of list) {
      const problem = flag.apply(value, settings);
      if (problem !== undefined) {
        return { kind: "error", message: fromFlag === undefined ? `${flag.env}: ${problem}` : problem };
      }
    }
  }
  return { kind: "settings", settings };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

export function startBanner(sim: Simulator): string {
  const lines = [`airtime simulator listening on ${sim.url} (clock: ${sim.clock.mode})`];
  lines.push(`  admin token: ${sim.adminToken}`);
  if (sim.demo === undefined) {
    lines.push("  no demo customer (see GET /_sim/customers)");
    return lines.join("\n");
  }
  const body = JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference: "demo-order-1" });
  lines.push(
    `  demo customer: ${sim.demo.customerId}, token: ${sim.demo.token}`,
    "",
    "Place an order:",
    `  curl -sS -X POST ${sim.url}/v1/airtime \\`,
    `    -H ${shellQuote(`Authorization: Bearer ${sim.demo.token}`)} \\`,
    "    -H 'Content-Type: application/json' -H 'Idempotency-Key: demo-key-1' \\",
    `    -d ${shellQuote(body)}`,
  );
  return lines.join("\n");
}

/** Resolves when the process is told to stop. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      resolve(signal);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

export async function serve(args: string[]): Promise<number> {
  const parsed = await parseServeArgs(args);
  switch (parsed.kind) {
    case "help":
      console.log(serveUsage());
      return 0;
    case "error":
      console.error(
        `airtime-harness serve: ${parsed.message}\n\nRun \`airtime-harness serve --help\` for the options.`,
      );
      return 2;
    case "settings":
      break;
    default: {
      const unreachable: never = parsed;
      throw new Error(`unexpected ${JSON.stringify(unreachable)}`);
    }
  }
  const { settings } = parsed;
  let sim: Simulator;
  try {
    sim = await createSimulator(settings.options);
  } catch (error) {
    console.error(`airtime-harness serve: ${(error as Error).message}`);
    return 2;
  }
  const stopping = stopSignal();
  try {
    await sim.listen(settings.port, settings.host);
  } catch (error) {
    console.error(
      `airtime-harness serve: cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`,
    );
    await sim.close();
    return 1;
  }
  console.log(startBanner(sim));
  const signal = await stopping;
  console.log(`\n${signal}: closing (finishing requests in flight)…`);
  await sim.close();
  console.log("closed");
  return 0;
}
