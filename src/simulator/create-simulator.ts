/**
 * `createSimulator()`: wires the domain, the embedded store and clock, the
 * plugins (webhooks, scenarios, test extensions) and the HTTP layer into one
 * simulator that a test runs in-process and `airtime-harness serve` runs as
 * a server, and closes it again. Its whole life in one file, read bottom
 * up: the wiring (`createSimulator`) last, above it the node:http server it
 * listens on, and first the shutdown that undoes both.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { compileRenderer, type DialectRenderer } from "../contract/provider-profile/render.ts";
import type { TokenResponse } from "../contract/public-schemas.ts";
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { Order } from "../domain/model.ts";
import type { Store } from "../domain/ports.ts";
import type { ScenarioEngine } from "../domain/scenario-engine.ts";
import type { AirtimeService } from "../domain/service-types.ts";
import { createHttpListeners, type HttpDeps, type PublicHandler } from "../http/create-listener.ts";
import { createJournal, type Journal, type JournalRecord } from "../http/journal.ts";
import { createAdminControls, type SimulatorCustomers } from "./admin-controls.ts";
import { type Backend, type BackendSettings, openBackend } from "./backend.ts";
import { buildPlugins } from "./default-plugins.ts";
import { createEmbeddedDomain, type EmbeddedDomain } from "./embedded-domain.ts";
import type { AdminExtension, LeftPending, SimulatorPlugin } from "../domain/plugin-port.ts";
import { DEMO_CUSTOMER_ID, type SimulatorOptions } from "./simulator-options.ts";
import {
  type DemoCustomerSettings,
  type EmbeddedDomainOptions,
  runSeed,
  type SimulatorSettings,
  simulatorSettings,
} from "./simulator-settings.ts";
import {
  captureState,
  readStateFile,
  restartSeed,
  restoreState,
  type Run,
  type SimulatorState,
  type StateHolders,
  writeStateFile,
} from "./state-file.ts";
import type { AddressInfo, Socket } from "node:net";

// Closing a simulator: what it stops, waits for, counts and saves, and the
// report of what was left undone. It runs at the other end of a simulator's
// life, over the parts the wiring below made.

/** How long `close()` lets work in flight finish when not told: requests only (see `CloseOptions`). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export interface CloseOptions {
  /**
   * How long requests and webhook attempts in flight may take to finish, ms;
   * then connections still open are destroyed and attempts still out are
   * recorded as failed (`shutdown`). Without it, requests get 10 s and webhook
   * attempts are aborted at once, so a test never waits on its receivers.
   */
  readonly timeoutMs?: number | undefined;
}

/** What a closed simulator left undone. */
export interface ShutdownReport {
  /** Requests still unanswered at the deadline: their connections were destroyed. */
  readonly requestsCutOff: number;
  /** Orders still pending: their next lifecycle step will not run (unless saved to a state file). */
  readonly pendingOrders: number;
  /** What the plugins left, e.g. `{ "undelivered webhooks": 2, "webhook attempts cut off": 1 }`. */
  readonly left: LeftPending;
  /** The state file written, with what was left, to be taken up at the next start. */
  readonly savedTo?: string;
}

/** What closing a simulator stops, waits for, counts and saves. */
interface Closing {
  readonly backend: Backend;
  readonly plugins: readonly SimulatorPlugin[];
  readonly server: ReturnType<typeof createHttpServer>;
  readonly store: Store;
  readonly statusTable: StatusTable;
  readonly stateFile: string | undefined;
  readonly run: Run;
  readonly holders: StateHolders | undefined;
}

/**
 * A simulator's `shutdown`: the first call closes it, and later calls
 * return the first call's result, whatever timeout they ask for.
 */
function shutdownOnce(closing: Closing): (options?: CloseOptions) => Promise<ShutdownReport> {
  let closed: Promise<ShutdownReport> | undefined;
  return (options = {}) => {
    closed ??= closeOnce(closing, options.timeoutMs);
    return closed;
  };
}

/**
 * Stops timers and accepting, finishes in-flight requests and then the
 * plugins' work within `timeoutMs`, saves the state file when there is one,
 * and reports what was left. Runs once per simulator (see `shutdownOnce`).
 */
async function closeOnce(closing: Closing, timeoutMs: number | undefined): Promise<ShutdownReport> {
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
    throw new RangeError("close({ timeoutMs }) needs a finite timeoutMs >= 0");
  }
  const { backend, plugins, stateFile, holders } = closing;
  // No more shared jobs are claimed; those running here (webhook attempts hold theirs) end as the plugins close.
  const backendStopped = backend.stop();
  for (const plugin of plugins) plugin.closing?.();
  const deadline = AbortSignal.timeout(timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
  const { requestsCutOff } = await closing.server.close(deadline);
  const left: Record<string, number> = {};
  for (const plugin of plugins) {
    const leftByPlugin = await plugin.close?.(timeoutMs === undefined ? undefined : deadline);
    for (const [what, count] of Object.entries(leftByPlugin ?? {})) left[what] = (left[what] ?? 0) + count;
  }
  await backendStopped;
  let pendingOrders = 0;
  for (const [status, count] of await closing.store.countOrdersByStatus()) {
    if (!isFinalStatus(closing.statusTable, status)) pendingOrders += count;
  }
  await backend.close();
  if (stateFile === undefined || holders === undefined) return { requestsCutOff, pendingOrders, left };
  await writeStateFile(stateFile, await captureState(closing.run, holders));
  return { requestsCutOff, pendingOrders, left, savedTo: stateFile };
}

// The node:http server around the request listener, with a graceful close: stop
// accepting, let in-flight requests finish (their connections close after
// the response), close idle keep-alive connections at once, and at the
// deadline destroy whatever is still open. Node stops enforcing its request
// timeouts once `server.close()` is called, so a client that sent half a body
// and stalled would hold the close open for ever: the sockets are tracked
// here for that reason.

export interface HttpCloseReport {
  /** Requests still unanswered at the deadline: their connections were destroyed. */
  readonly requestsCutOff: number;
}

export interface HttpServerHandle {
  listen(port: number, host: string): Promise<string>;
  readonly url: string | undefined;
  /**
   * Stops accepting and resolves once every in-flight request has been
   * answered or, when `deadline` aborts first, once the connections still open
   * have been destroyed.
   */
  close(deadline?: AbortSignal): Promise<HttpCloseReport>;
}

function createHttpServer(listener: RequestListener): HttpServerHandle {
  const server: Server = createServer({ keepAliveTimeout: 5_000 }, listener);
  const busy = new Map<Socket, number>();
  const answering = new Set<ServerResponse>();
  let url: string | undefined;
  let closing = false;
  let closed: Promise<HttpCloseReport> | undefined;

  server.on("connection", (socket: Socket) => {
    busy.set(socket, 0);
    socket.on("close", () => busy.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    answering.add(res);
    res.on("close", () => {
      answering.delete(res);
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      // Once closing, a connection is ended as soon as its last request is answered.
      if (closing && left === 0) socket.end();
    });
    if (closing) res.setHeader("Connection", "close");
  });

  function cutOff(): number {
    let unanswered = 0;
    for (const [socket, inFlight] of busy) {
      unanswered += inFlight;
      socket.destroy();
    }
    return unanswered;
  }

  return {
    get url() {
      return url;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
          url = `http://${shownHost}:${address.port}`;
          resolve(url);
        });
      });
    },
    close(deadline) {
      if (closed !== undefined) return closed;
      if (!server.listening) return Promise.resolve({ requestsCutOff: 0 });
      closing = true;
      closed = new Promise((resolve, reject) => {
        let requestsCutOff = 0;
        const onDeadline = () => {
          requestsCutOff = cutOff();
        };
        server.close((error) => {
          deadline?.removeEventListener("abort", onDeadline);
          if (error === undefined) resolve({ requestsCutOff });
          else reject(error);
        });
        for (const [socket, inFlight] of busy) if (inFlight === 0) socket.end();
        // The client learns the connection ends with the answer it is waiting for.
        for (const res of answering) if (!res.headersSent) res.setHeader("Connection", "close");
        if (deadline?.aborted === true) onDeadline();
        else deadline?.addEventListener("abort", onDeadline, { once: true });
      });
      return closed;
    },
  };
}

export interface SimulatorClock {
  readonly mode: "real" | "virtual";
  /** Simulator time, Unix ms. */
  now(): number;
  /**
   * Virtual clock only: moves time forward, running every due transition,
   * webhook attempt and key expiry in order, then waits for the plugins'
   * background work to settle.
   */
  advance(ms: number): Promise<void>;
}

export interface Simulator {
  /** Starts the HTTP server; resolves to its base URL. Defaults: port 0 (any free), host 127.0.0.1. */
  listen(port?: number, host?: string): Promise<string>;
  /** The base URL once listening. Throws before `listen()`. */
  readonly url: string;
  readonly adminToken: string;
  /** The seeded demo customer; undefined with `demo: false`. */
  readonly demo: { readonly customerId: string; readonly token: string; readonly apiKey: string } | undefined;
  readonly clock: SimulatorClock;
  /** The provider profile it speaks, compiled once at start (our spec's without `provider`). */
  readonly provider: CompiledProfile;
  /** The customer directory: create, update, read customers (same rules as the admin API). */
  readonly customers: SimulatorCustomers;
  readonly service: AirtimeService;
  readonly store: Store;
  readonly journal: Journal;
  /**
   * The node:http request listener behind `listen()`: calling it with a request and a response answers
   * in-process, without a socket (e.g. through an injection library), whatever framework serves it.
   */
  readonly requestListener: RequestListener;
  /**
   * The public API (`/v1/...`) as middleware for your own express or connect app: it answers the
   * public routes, journalled like any request, and passes any other request on to `next`.
   *
   * @example
   * app.use(sim.publicHandler); // POST /v1/airtime, GET /v1/airtime/{reference}, GET /v1/balance, POST /v1/auth/token
   */
  readonly publicHandler: PublicHandler;
  readonly plugins: readonly SimulatorPlugin[];
  /** Waits until background work started so far (webhook attempts) has settled. */
  settle(): Promise<void>;
  /**
   * Stops timers and accepting, finishes in-flight requests and then the
   * plugins' work (webhook attempts) within `timeoutMs`, and reports what was
   * left. Later calls return the first call's result.
   */
  shutdown(options?: CloseOptions): Promise<ShutdownReport>;
  /** `shutdown()` without its report. */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Builds a simulator: embedded store, real or virtual clock, the default
 * plugins plus `options.plugins`, a `demo` customer unless `demo: false`.
 * Nothing listens until `listen()`.
 *
 * @example
 * const sim = await createSimulator({ clock: "virtual", demo: { token: "demo-token" } });
 * const url = await sim.listen();
 * const res = await fetch(`${url}/v1/airtime`, {
 *   method: "POST",
 *   headers: { authorization: "Bearer demo-token", "content-type": "application/json", "idempotency-key": "k1" },
 *   body: JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference: "order-1" }),
 * });
 * // 200 {id, reference: "order-1", status: 0, message: "Pending"}
 * await sim.clock.advance(2_000); // the order is now 20 Success
 * await sim.close();
 */
export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const start = await readStart(options);
  const { settings, journal } = start;
  const backend = await openBackend(backendSettings(start));
  const domain = createEmbeddedDomain(domainOptions(start, backend));
  const { store, time, service } = domain;

  const plugins = await buildPlugins(settings, backend, domain, journal, start.dialect);

  const settle = async (): Promise<void> => {
    for (const plugin of plugins) await plugin.settle?.();
  };
  const clock: SimulatorClock = {
    mode: settings.clock,
    now: () => time.clock.now(),
    async advance(ms) {
      await backend.advance(ms);
      await settle();
    },
  };

  // One customer service: the directory's rules plus what a reset tells the plugins, exposed as `sim.customers`.
  const customers = createAdminControls({
    store,
    directory: domain.customers,
    service,
    journal: backend.journal.view,
    clock,
    retention: domain.retention,
    onReset: async (customerId) => {
      for (const plugin of plugins) await plugin.reset?.(customerId);
    },
  });

  const holders = backend.persistence === undefined ? undefined : { ...backend.persistence, plugins };
  const demo = await restoreAndSeed({ saved: start.saved, holders, settings, customers, store });

  const { adminToken } = settings;
  const http = createHttpListeners(httpDeps({ start, backend, domain, plugins, customers }));
  const server = createHttpServer(http.requestListener);
  backend.start();
  const { statusTable } = settings;
  const { run } = start;
  const shutdown = shutdownOnce({
    backend,
    plugins,
    server,
    store,
    statusTable,
    stateFile: settings.stateFile,
    run,
    holders,
  });
  return {
    listen: (port = 0, host = "127.0.0.1") => server.listen(port, host),
    get url() {
      if (server.url === undefined) throw new Error("the simulator is not listening; call listen() first");
      return server.url;
    },
    adminToken,
    demo,
    clock,
    provider: start.dialect.profile,
    customers,
    service,
    store,
    journal,
    requestListener: http.requestListener,
    publicHandler: http.publicHandler,
    plugins,
    settle,
    shutdown,
    async close(closeOptions) {
      await shutdown(closeOptions);
    },
  };
}

/**
 * What a simulator reads before it opens anything: its settings, normalised
 * once, and what follows from them alone. Read first so that a broken setting
 * or state file fails before a Redis connection is opened.
 */
interface Start {
  readonly settings: SimulatorSettings;
  /** The state file's saved run, when there is one to go on with. */
  readonly saved: SimulatorState | undefined;
  readonly run: Run;
  readonly dialect: DialectRenderer;
  readonly journal: Journal;
}

async function readStart(options: SimulatorOptions): Promise<Start> {
  const settings = simulatorSettings(options);
  // A saved run goes on with its own seed, on a new stream per restart (ids never repeat).
  const saved = settings.stateFile === undefined ? undefined : await readStateFile(settings.stateFile);
  const run = { seed: runSeed(settings, saved), restarts: saved === undefined ? 0 : saved.restarts + 1 };
  // Compiled once: every public answer and webhook is written through it.
  const dialect = compileRenderer(settings.provider, { newUuid: randomUUID });
  const journal = createJournal(settings.journalLimit);
  return { settings, saved, run, dialect, journal };
}

/** The simulator's settings as the backend seam takes them: storage, durability, clock and journal. */
function backendSettings({ settings, journal }: Start): BackendSettings {
  return {
    store: settings.store,
    durability: settings.redisDurability,
    jobShards: settings.redisJobShards,
    clock: settings.clock,
    startAt: settings.startAt,
    statusTable: settings.statusTable,
    stateFile: settings.stateFile,
    journal,
    journalLimit: settings.journalLimit,
    onError: settings.onError,
    onWarning: (message) => console.warn(`airtime simulator: ${message}`),
  };
}

/** The domain's options: the backend's ports, and the run's seed, timing and order rules. */
function domainOptions({ settings, run }: Start, backend: Backend): EmbeddedDomainOptions {
  return {
    store: backend.store,
    time: backend.time,
    scheduler: backend.scheduler,
    seed: run.restarts === 0 ? run.seed : restartSeed(run.seed, run.restarts),
    timing: settings.timing,
    failureRate: settings.failureRate,
    outcomes: settings.outcomes,
    statusTable: settings.statusTable,
    keyLifetimeMs: settings.keyLifetimeMs,
    maxOrders: settings.maxOrders,
    onEventError: (error) => settings.onError(error),
  };
}

/**
 * Puts a saved state back, then seeds the demo customer and the configured
 * ones. Customers a saved state brought back keep their balances: only new
 * ones are seeded.
 */
async function restoreAndSeed(parts: {
  readonly saved: SimulatorState | undefined;
  readonly holders: StateHolders | undefined;
  readonly settings: SimulatorSettings;
  readonly customers: SimulatorCustomers;
  readonly store: Store;
}): Promise<Simulator["demo"]> {
  const { saved, holders, settings, customers, store } = parts;
  if (saved !== undefined && holders !== undefined) await restoreState(saved, holders);
  const restored = async (id: string | undefined) => id !== undefined && (await store.getCustomer(id)) !== undefined;
  const demo = settings.demo === undefined ? undefined : await seedDemo(customers, settings.demo, store);
  for (const input of settings.customers) if (!(await restored(input.id))) await customers.seed(input);
  return demo;
}

/** The parts the HTTP layer answers from. */
interface HttpWiring {
  readonly start: Start;
  readonly backend: Backend;
  readonly domain: EmbeddedDomain;
  readonly plugins: readonly SimulatorPlugin[];
  readonly customers: ReturnType<typeof createAdminControls>;
}

/**
 * The HTTP layer's dependencies: the public API over the domain's service,
 * the order limits and the dialect, with the plugins' scenario engines and
 * hooks; the admin API, unless `admin: false`, over the customer service.
 */
function httpDeps(wiring: HttpWiring): HttpDeps {
  const { start, backend, domain, plugins, customers } = wiring;
  const { settings } = start;
  const { service } = domain;
  const engines = plugins.map((p) => p.scenarios).filter((s): s is ScenarioEngine => s !== undefined);
  const extensions = plugins.map((p) => p.admin).filter((a): a is AdminExtension => a !== undefined);
  return {
    clock: domain.time.clock,
    journal: backend.journal.recorder,
    reportError: settings.onError,
    ...(settings.cors === undefined ? {} : { corsOrigins: settings.cors }),
    ...requestListener(settings.onRequest, plugins),
    publicApi: {
      service,
      limits: settings.limits,
      dialect: start.dialect,
      scenarioEngines: engines,
      beforeResponse: async (order: Order) => {
        for (const plugin of plugins) await plugin.beforeResponse?.(order);
      },
      issueToken: tokenIssuer(domain.customers, settings.tokenTtlSeconds),
    },
    adminApi: settings.admin
      ? {
          adminToken: settings.adminToken,
          authenticateCustomer: (token: string) => service.authenticate(token),
          // Plugins keep per-customer state too (scenario attempt counters): `customers.reset` tells them.
          controls: customers,
          extensions,
        }
      : undefined,
  };
}

/** `POST /v1/auth/token`: a customer's API key exchanged for a token that lives `ttlSeconds`. */
function tokenIssuer(
  directory: EmbeddedDomain["customers"],
  ttlSeconds: number,
): (customerId: string, apiKey: string) => Promise<TokenResponse | undefined> {
  return async (customerId, apiKey) => {
    const outcome = await directory.issueToken(customerId, apiKey, ttlSeconds);
    switch (outcome.kind) {
      case "issued":
        return { access_token: outcome.accessToken, issued_at: outcome.issuedAt, expires_in: outcome.expiresInSeconds };
      case "invalid_client":
        return undefined;
      default: {
        const unreachable: never = outcome;
        throw new Error(`unmapped token outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}

/** The request listeners, the option's and the plugins', as one (none when nobody listens). */
function requestListener(
  option: SimulatorSettings["onRequest"],
  plugins: readonly SimulatorPlugin[],
): { onRequest?: (request: JournalRecord) => void } {
  const listeners = plugins.filter((p) => p.onRequest !== undefined);
  if (listeners.length === 0) return option === undefined ? {} : { onRequest: option };
  return {
    onRequest(request) {
      option?.(request);
      for (const plugin of listeners) plugin.onRequest?.(request);
    },
  };
}

async function seedDemo(
  customers: SimulatorCustomers,
  demo: DemoCustomerSettings,
  store: Store,
): Promise<{ customerId: string; token: string; apiKey: string }> {
  // Restored from a state file: kept as it was saved.
  const customer =
    (await store.getCustomer(DEMO_CUSTOMER_ID)) ??
    (await customers.seed({
      id: DEMO_CUSTOMER_ID,
      name: "Demo customer",
      balance: demo.balance,
      token: demo.token,
      apiKey: demo.apiKey,
      webhook: demo.webhook,
    }));
  return { customerId: customer.id, token: customer.tokens[0] as string, apiKey: customer.apiKey };
}
