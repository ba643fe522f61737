/**
 * The flags of `airtime-harness serve`, each with its environment twin and
 * the config path it sets. Values are checked by the config schema, not
 * here; only the scenario flags read their text themselves, because files
 * named on the command line resolve from the working directory.
 */
import { resolve } from "node:path";
import { looksLikeFile } from "../scenarios/library.ts";
import type { Flag } from "./flag-table.ts";

/** Several values in one, separated by commas (handy in environment variables). */
function list(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** Files named on the command line resolve from the working directory, not the config's folder. */
function refOf(value: string): string {
  return looksLikeFile(value) ? resolve(value) : value;
}

function scenarioRefs(value: string): string[] {
  const refs = list(value);
  if (refs.length === 0) throw new Error("needs a file or a scenario name");
  return refs.map(refOf);
}

function customerScenarios(value: string): Record<string, string[]> {
  const customers: Record<string, string[]> = {};
  for (const entry of list(value)) {
    const at = entry.indexOf("=");
    const [customer, ref] = [entry.slice(0, at), entry.slice(at + 1)];
    if (at < 0 || customer === "" || ref === "") {
      throw new Error(`needs CUSTOMER=FILE|NAME, got ${JSON.stringify(entry)}`);
    }
    customers[customer] = [...(customers[customer] ?? []), refOf(ref)];
  }
  return customers;
}

export const CONFIG_ENV = "AIRTIME_SIM_CONFIG";

/** `--config` and `--help` are read before the table. */
export const SERVE_FLAGS: readonly Flag[] = [
  {
    name: "port",
    env: "AIRTIME_SIM_PORT",
    value: "N",
    path: ["port"],
    help: "port to listen on (default 4010; 0 picks a free one)",
  },
  {
    name: "host",
    env: "AIRTIME_SIM_HOST",
    value: "HOST",
    path: ["host"],
    help: "interface to bind (default 127.0.0.1; 0.0.0.0 exposes it: then --admin-token or --no-admin is required)",
  },
  {
    name: "clock",
    env: "AIRTIME_SIM_CLOCK",
    value: "real|virtual",
    path: ["clock"],
    help: "virtual: nothing happens until POST /_sim/clock/advance (default real)",
  },
  {
    name: "timing",
    env: "AIRTIME_SIM_TIMING",
    value: "TIMING",
    path: ["timing"],
    help: "pending → final delay: 2s (default), 1s..3s, lognormal:2s,0.5",
  },
  {
    name: "seed",
    env: "AIRTIME_SIM_SEED",
    value: "N",
    path: ["seed"],
    help: "seed of every random choice, for reproducible runs",
  },
  {
    name: "failure-rate",
    env: "AIRTIME_SIM_FAILURE_RATE",
    value: "0..1",
    path: ["failureRate"],
    help: "share of orders that end 2 Failed (default 0)",
  },
  {
    name: "cors",
    env: "AIRTIME_SIM_CORS",
    value: "ORIGIN[,ORIGIN]",
    path: ["cors"],
    parse: list,
    help: "let a browser app on these origins call the simulator (* for any; default: CORS off)",
  },
  {
    name: "provider",
    env: "AIRTIME_SIM_PROVIDER",
    value: "FILE",
    path: ["provider"],
    parse: (value) => resolve(value),
    help: "speak a provider's dialect: bodies, statuses, errors, webhooks and signing from a profile file",
  },
  {
    name: "admin-token",
    env: "AIRTIME_SIM_ADMIN_TOKEN",
    value: "TOKEN",
    path: ["adminToken"],
    help: "bearer token of the /_sim admin API, 16+ characters (default: generated)",
  },
  {
    name: "no-admin",
    path: ["admin"],
    sets: false,
    help: "no admin API: /_sim/… answers 404 like any unknown path",
  },
  {
    name: "demo-token",
    env: "AIRTIME_SIM_DEMO_TOKEN",
    value: "TOKEN",
    path: ["demo", "token"],
    help: "the demo customer's bearer token (default: generated)",
  },
  {
    name: "demo-balance",
    env: "AIRTIME_SIM_DEMO_BALANCE",
    value: "KES",
    path: ["demo", "balance"],
    help: "the demo customer's balance in KES (default 100000)",
  },
  {
    name: "webhook-url",
    env: "AIRTIME_SIM_WEBHOOK_URL",
    value: "URL",
    path: ["demo", "webhook", "url"],
    help: "send the demo customer's webhooks here (e.g. an `airtime-harness listen`)",
  },
  {
    name: "webhook-secret",
    env: "AIRTIME_SIM_WEBHOOK_SECRET",
    value: "whsec_…",
    path: ["demo", "webhook", "secrets"],
    requires: "webhook-url",
    help: "the demo webhook's signing secret(s), comma-separated for rotation (default: generated)",
  },
  {
    name: "webhook-schedule",
    env: "AIRTIME_SIM_WEBHOOK_SCHEDULE",
    value: "LIST",
    path: ["webhooks", "schedule"],
    help: "delay before each attempt, e.g. 0,100ms,1s (default 0,5s,5m,30m,2h,5h,10h,14h,20h,24h)",
  },
  {
    name: "webhook-timeout",
    env: "AIRTIME_SIM_WEBHOOK_TIMEOUT",
    value: "DURATION",
    path: ["webhooks", "timeout"],
    help: "per-attempt timeout, e.g. 500ms (default 15s)",
  },
  {
    name: "key-retention",
    env: "AIRTIME_SIM_KEY_RETENTION",
    value: "DURATION",
    path: ["idempotencyRetention"],
    help: "how long an idempotency key and its order are kept, simulator time (default 24h)",
  },
  {
    name: "max-orders",
    env: "AIRTIME_SIM_MAX_ORDERS",
    value: "N",
    path: ["maxOrders"],
    help: "orders kept in full; beyond it the oldest final ones are evicted (default 300000)",
  },
  {
    name: "store",
    env: "AIRTIME_SIM_STORE",
    value: "memory|URL",
    path: ["store"],
    help:
      "where state lives: memory (default) or redis://HOST:PORT/DB, shared by every simulator on it " +
      "(redis+cluster://HOST:PORT,HOST:PORT on Redis Cluster)",
  },
  {
    name: "redis-durability",
    env: "AIRTIME_SIM_REDIS_DURABILITY",
    value: "memory|aof|replicated",
    path: ["redisDurability"],
    help:
      "on Redis, what an acknowledged order survives: memory (default), aof (needs appendonly yes), " +
      "replicated (a replica holds it, else 503 store_not_replicated)",
  },
  {
    name: "workers",
    env: "AIRTIME_SIM_WORKERS",
    value: "N",
    path: ["workers"],
    help: "processes serving the one port (default 1); more than one needs --store redis://…",
  },
  {
    name: "state-file",
    env: "AIRTIME_SIM_STATE_FILE",
    value: "FILE",
    path: ["stateFile"],
    help: "keep the whole state across restarts: loaded at start if FILE exists, written on shutdown",
  },
  {
    name: "scenario",
    env: "AIRTIME_SIM_SCENARIO",
    value: "FILE|NAME",
    path: ["scenarios", "active"],
    multiple: true,
    parse: scenarioRefs,
    help: "activate a scenario for every customer: a YAML file or a shipped name (repeatable)",
  },
  {
    name: "scenario-for",
    env: "AIRTIME_SIM_SCENARIO_FOR",
    value: "CUSTOMER=FILE|NAME",
    path: ["scenarios", "customers"],
    multiple: true,
    parse: customerScenarios,
    help: "activate a scenario for one customer only (repeatable)",
  },
  {
    name: "magic-accounts",
    env: "AIRTIME_SIM_MAGIC_ACCOUNTS",
    value: "on|off",
    path: ["scenarios", "magicAccounts"],
    help: "the magic test accounts (default on)",
  },
  {
    name: "log-format",
    env: "AIRTIME_SIM_LOG_FORMAT",
    value: "pretty|json",
    path: ["log", "format"],
    help: "the request log: a readable line per request (default), or JSON lines",
  },
  {
    name: "log-level",
    env: "AIRTIME_SIM_LOG_LEVEL",
    value: "LEVEL",
    path: ["log", "level"],
    help: "lowest level logged: trace, debug, info (default), warn (4xx, 5xx), error (5xx), silent",
  },
  {
    name: "shutdown-timeout",
    env: "AIRTIME_SIM_SHUTDOWN_TIMEOUT",
    value: "DURATION",
    path: ["shutdownTimeout"],
    help: "on SIGTERM/SIGINT, how long work in flight may finish before it is cut off (default 10s)",
  },
  {
    name: "quiet",
    path: ["log", "quiet"],
    help: "no request log",
  },
];
