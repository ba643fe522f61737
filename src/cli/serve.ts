/**
 * `airtime-harness serve`: the simulator as a server. Settings come from, in
 * rising precedence: defaults, the config file, environment variables, flags.
 * The flags and environment give a partial config (see `SERVE_FLAGS`) that is
 * merged over the file's, and the whole is parsed once by the config schema.
 *
 * Once it listens it prints a banner: where it is, the tokens, the
 * dashboard, where the demo customer's webhooks go and with which secret,
 * where its state and config came from, and a `curl` line that places an
 * order. Every value a newcomer needs next is on screen, none generated
 * silently.
 */
import {
  ConfigError,
  configToOptions,
  describeConfigIssues,
  parseSimulatorConfig,
  readConfigFile,
} from "../simulator/config.ts";
import {
  createSimulator,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type ShutdownReport,
  type Simulator,
} from "../simulator/create-simulator.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import cluster from "node:cluster";
import { existsSync } from "node:fs";
import { coloursFor } from "../report/console.ts";
import { blameFlag, flagRows, mergeConfig, missingCompanion, readFlags } from "./flag-table.ts";
import { chooseConfigFile } from "./config-discovery.ts";
import { cannotListen, watchStopSignals } from "./long-running.ts";
import { createRequestLog, flushQuietly, openLogDestination, type RequestLogSettings } from "./request-log.ts";
import { CONFIG_ENV, SERVE_FLAGS } from "./serve-flags.ts";
import { runWorkers, workerIndex } from "./serve-workers.ts";
import { DASHBOARD_PLUGIN_NAME, dashboardLink } from "../dashboard/dashboard-plugin.ts";

/** What `serve` starts with. */
export interface ServeSettings {
  readonly port: number;
  readonly host: string;
  readonly options: SimulatorOptions;
  readonly log: RequestLogSettings;
  /** How long work in flight may finish after the stop signal, ms. */
  readonly shutdownTimeoutMs: number;
  /** Processes serving the one port (`--workers`); more than one needs the Redis store. */
  readonly workers: number;
  /** The config file read, and whether it was found in the working directory rather than named. */
  readonly config?: { readonly file: string; readonly discovered: boolean };
}

export function serveUsage(): string {
  const rows = [
    [
      "--config FILE",
      CONFIG_ENV,
      "YAML or JSON config (default: airtime-harness.config.yaml or .json here, if present)",
    ],
    ...flagRows(SERVE_FLAGS),
    ["-h, --help", "", "show this help"],
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

/** Flags, environment and config file → settings, or the reason they are not valid. */
export async function parseServeArgs(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<ParsedServeArgs> {
  const flags = readFlags(args, env, SERVE_FLAGS, {
    config: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (!flags.ok) return { kind: "error", message: flags.error };
  if (flags.other.help === true) return { kind: "help" };
  const choice = chooseConfigFile((flags.other.config as string | undefined) ?? env[CONFIG_ENV], cwd);
  if (choice.kind === "error") return { kind: "error", message: choice.message };
  const file = choice.kind === "file" ? choice.file : undefined;
  try {
    const merged = mergeConfig(file === undefined ? {} : await readConfigFile(file), flags.config);
    const missing = missingCompanion(merged, flags.sources, SERVE_FLAGS);
    if (missing !== undefined) return { kind: "error", message: missing };
    const parsed = parseSimulatorConfig(merged);
    if (!parsed.ok) {
      const fromFlags = parsed.issues.map((issue) => blameFlag(issue, flags.sources)).find((m) => m !== undefined);
      if (fromFlags !== undefined) return { kind: "error", message: fromFlags };
      const lines = describeConfigIssues(parsed.issues);
      return { kind: "error", message: file === undefined ? lines.join("\n") : new ConfigError(file, lines).message };
    }
    const {
      port = 4010,
      host = "127.0.0.1",
      log = {},
      shutdownTimeout: shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS,
      workers = 1,
      store = "memory",
    } = parsed.config;
    if (workers > 1 && store === "memory") {
      return {
        kind: "error",
        message:
          `--workers ${workers} needs a shared store (--store redis://HOST:PORT/DB): ` +
          "with the memory store each worker would keep its own balances, orders and keys",
      };
    }
    const logSettings: RequestLogSettings = {
      format: log.format ?? "pretty",
      level: log.quiet === true ? "silent" : (log.level ?? "info"),
    };
    if (!isLoopback(host) && parsed.config.adminToken === undefined && parsed.config.admin !== false) {
      return {
        kind: "error",
        message:
          `--host ${host} is reachable from the network, and so would be the admin API: ` +
          "give it a token of your own (--admin-token, 16+ characters) or switch it off (--no-admin)",
      };
    }
    const options = await configToOptions(parsed.config, file);
    const config = choice.kind === "file" ? { file: choice.file, discovered: choice.discovered } : undefined;
    return {
      kind: "settings",
      settings: {
        port,
        host,
        options,
        log: logSettings,
        shutdownTimeoutMs,
        workers,
        ...(config === undefined ? {} : { config }),
      },
    };
  } catch (error) {
    if (error instanceof ConfigError) return { kind: "error", message: error.message };
    throw error;
  }
}

/** The closing line: what shutdown cut off and what it left undone, every count shown so none passes unseen. */
export function shutdownSummary(report: ShutdownReport): string {
  const counts = [
    `${report.requestsCutOff} requests cut off`,
    `${report.pendingOrders} pending orders`,
    ...Object.entries(report.left).map(([what, count]) => `${count} ${what}`),
  ];
  const saved = report.savedTo === undefined ? "" : `; state saved to ${report.savedTo}`;
  return `closed; left: ${counts.join(", ")}${saved}`;
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
  const worker = workerIndex();
  if (worker === undefined) {
    if (settings.workers <= 1) return serveHere(settings, worker);
    return runWorkers(settings.workers, settings.options, settings.log.format === "json" ? console.error : console.log);
  }
  try {
    return await serveHere(settings, worker);
  } finally {
    // The worker's channel to the primary would keep it running once it is done. Through the
    // worker, not process.disconnect(): that one reads as the primary gone, and exits 0 at once.
    cluster.worker?.disconnect();
  }
}

/** Where the demo customer's webhooks go, and where the state came from, as the banner tells them. */
async function bannerFacts(sim: Simulator, settings: ServeSettings, stateLoaded: boolean): Promise<BannerFacts> {
  const { demo, stateFile } = settings.options;
  const webhook = sim.demo === undefined ? undefined : (await sim.store.getCustomer(sim.demo.customerId))?.webhook;
  // Generated at this start only when none was given and none came back from a state file.
  const secretGiven = typeof demo === "object" && demo.webhook?.secrets !== undefined;
  return {
    ...(webhook === undefined
      ? {}
      : { webhook: { url: webhook.url, secrets: webhook.secrets, generated: !secretGiven && !stateLoaded } }),
    ...(stateFile === undefined ? {} : { stateFile: { file: stateFile, loaded: stateLoaded } }),
    ...(settings.config === undefined ? {} : { config: settings.config }),
  };
}

/** One simulator in this process, until the stop signal; `worker` is its number under `--workers`. */
async function serveHere(settings: ServeSettings, worker: number | undefined): Promise<number> {
  const logOut = openLogDestination();
  const onRequest = createRequestLog(settings.log, logOut, coloursFor(process.stdout));
  // With JSON lines on stdout, the human banner goes to stderr, so stdout stays machine-readable.
  const say = settings.log.format === "json" ? console.error : console.log;
  // Looked at before the simulator reads it: afterwards the banner could not tell a loaded file from a new one.
  const stateFile = settings.options.stateFile;
  const stateLoaded = stateFile !== undefined && existsSync(stateFile);
  let sim: Simulator;
  try {
    sim = await createSimulator({ ...settings.options, ...(onRequest === undefined ? {} : { onRequest }) });
  } catch (error) {
    console.error(`airtime-harness serve: ${(error as Error).message}`);
    return 2;
  }
  const stopping = watchStopSignals(say);
  try {
    await sim.listen(settings.port, settings.host);
  } catch (error) {
    console.error(`airtime-harness serve: ${cannotListen(settings.host, settings.port, error)}`);
    stopping.dispose();
    await sim.close();
    return 2;
  }
  if (worker === undefined || worker === 1) {
    const facts = await bannerFacts(sim, settings, stateLoaded);
    say(startBanner(sim, { host: settings.host, admin: settings.options.admin !== false }, facts));
    if (worker !== undefined)
      say(`  workers: ${settings.workers} processes on this port, sharing ${settings.options.store}`);
  }
  const signal = await stopping.first;
  // The request lines before the words that follow them on the same stdout.
  flushQuietly(logOut);
  const seconds = settings.shutdownTimeoutMs / 1000;
  say(`\n${signal}: closing (finishing work in flight for up to ${seconds}s; ${signal} again exits at once)…`);
  try {
    const report = await sim.shutdown({ timeoutMs: settings.shutdownTimeoutMs });
    flushQuietly(logOut);
    say(shutdownSummary(report));
    return 0;
  } catch (error) {
    // Saving the state file failed: say so, and exit non-zero so a supervisor notices.
    console.error(`airtime-harness serve: ${(error as Error).message}`);
    return 1;
  } finally {
    stopping.dispose();
  }
}

/** What the banner says beyond the simulator itself: where things came from. */
export interface BannerFacts {
  /** The demo customer's webhook endpoint, and whether its secret was generated at this start. */
  readonly webhook?: { readonly url: string; readonly secrets: readonly string[]; readonly generated: boolean };
  /** The state file, and whether this start loaded it (false: none yet, written on shutdown). */
  readonly stateFile?: { readonly file: string; readonly loaded: boolean };
  /** The config file, and whether it was found in the working directory rather than named. */
  readonly config?: { readonly file: string; readonly discovered: boolean };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function originLines(facts: BannerFacts): string[] {
  const lines: string[] = [];
  if (facts.config !== undefined) {
    const how = facts.config.discovered ? " (found in the working directory)" : "";
    lines.push(`  config: ${facts.config.file}${how}`);
  }
  if (facts.stateFile !== undefined) {
    const { file, loaded } = facts.stateFile;
    lines.push(
      loaded
        ? `  state: loaded from ${file} (saved there again on shutdown)`
        : `  state: none in ${file} yet (saved there on shutdown)`,
    );
  }
  if (facts.webhook !== undefined) {
    const { url, secrets, generated } = facts.webhook;
    lines.push(`  webhooks: ${url}, signed with ${secrets.join(", ")}`);
    if (generated)
      lines.push("    (secret generated for this run: give it to your handler, or fix one with --webhook-secret)");
  }
  return lines;
}

/** Loopback names and addresses: a simulator bound there is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(bare);
}

export function startBanner(
  sim: Simulator,
  settings: { readonly host: string; readonly admin: boolean },
  facts: BannerFacts = {},
): string {
  const lines = [`airtime simulator listening on ${sim.url} (clock: ${sim.clock.mode})`];
  if (!isLoopback(settings.host)) {
    lines.push(
      `  warning: bound to ${settings.host}, reachable from the network (admin API ${settings.admin ? "on" : "off"})`,
    );
  }
  lines.push(settings.admin ? `  admin token: ${sim.adminToken}` : "  admin API: off (--no-admin)");
  if (settings.admin && sim.plugins.some((p) => p.name === DASHBOARD_PLUGIN_NAME)) {
    lines.push(`  dashboard: ${dashboardLink(sim.url, sim.adminToken)}`);
  }
  lines.push(...originLines(facts));
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
