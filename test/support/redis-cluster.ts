/**
 * A real Redis Cluster for the tests: six `redis-server` processes on free
 * loopback ports (three masters, three replicas), joined by
 * `redis-cli --cluster create`, each in its own temporary directory so its
 * `nodes.conf` never meets another run's. It is ready once every node says
 * `cluster_state:ok`, and it is torn down (processes stopped, directories
 * removed) after the file's tests.
 *
 * Started `proxied`, each node has a fault proxy in front of it and
 * announces the proxy's port (`cluster-announce-port`): every client, and
 * every replica's link to its master, then goes through the proxies, as the
 * slot map and each `MOVED` name them. The cluster bus stays direct.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { type RunningProcess, startProcess } from "../../src/harness/child-process.ts";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.ts";
import { freePort } from "./processes.ts";
import { redisSkipReason } from "./redis.ts";

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
const REDIS_CLI = process.env.REDIS_CLI_PATH ?? "/usr/bin/redis-cli";
const NODES = 6;
const READY_TIMEOUT_MS = 30_000;

const runFile = promisify(execFile);

/**
 * Why the cluster tests cannot run here, or undefined when they can. As for
 * a single server, CI must have both binaries (`.ci/run` installs them).
 */
export function redisClusterSkipReason(): string | undefined {
  const server = redisSkipReason();
  if (server !== undefined || existsSync(REDIS_CLI)) return server;
  const reason = `no redis-cli at ${REDIS_CLI} (install Debian's redis-tools or set REDIS_CLI_PATH)`;
  if (process.env.CI === "true") throw new Error(`CI needs the Redis Cluster tests: ${reason}`);
  return reason;
}

export interface ClusterNode {
  readonly port: number;
  /** SIGKILL, as a crash: nothing is flushed, the cluster sees it fail. */
  kill(): Promise<void>;
  /** Starts a killed node again on its port and directory: it rejoins from its `nodes.conf`. */
  restart(): Promise<void>;
  /** SIGSTOP: the node hears and answers nothing, on any link, until `resume()`. */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** The fault proxy in front of it, when the cluster was started `proxied`. */
  readonly proxy: FaultProxy | undefined;
}

/** A range of hash slots and who serves it, as `CLUSTER SLOTS` says. */
export interface SlotRange {
  readonly from: number;
  readonly to: number;
  readonly masterPort: number;
  readonly replicaPorts: readonly number[];
}

/** The range of `ranges` (a slot map, as `slotRanges()` reads it) that holds `slot`; throws when none does. */
export function rangeServing(ranges: readonly SlotRange[], slot: number): SlotRange {
  const range = ranges.find(({ from, to }) => slot >= from && slot <= to);
  if (range === undefined) throw new Error(`no master serves slot ${slot}`);
  return range;
}

export interface TestRedisCluster {
  /** `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…`, every node (its proxy, when proxied) as a seed. */
  readonly url: string;
  readonly nodes: readonly ClusterNode[];
  /** The ports of the nodes that are masters right now, as the cluster announces them (proxies' when proxied). */
  masterPorts(): Promise<number[]>;
  /** The slot map, asked of a running node. */
  slotRanges(): Promise<SlotRange[]>;
  /** Stops every node and removes their directories. */
  stop(): Promise<void>;
}

interface RunningNode {
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  readonly proxy: FaultProxy | undefined;
  process: RunningProcess;
  /** Stopped by SIGSTOP: it would hold a question forever. */
  paused: boolean;
}

/**
 * Six nodes started, joined and ready (`cluster_state:ok` on each). The
 * caller stops them (`afterAll(() => cluster.stop())`).
 */
export async function startRedisCluster(options: { readonly proxied?: boolean } = {}): Promise<TestRedisCluster> {
  const directory = await mkdtemp(join(tmpdir(), "redis-cluster-"));
  const nodes: RunningNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.process.stop(1_000)));
    await Promise.all(nodes.map((node) => node.proxy?.close()));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < NODES; index += 1) nodes.push(await launchNode(directory, index, options.proxied));
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await runFile(REDIS_CLI, ["--cluster", "create", ...addresses, "--cluster-replicas", "1", "--cluster-yes"]);
    await Promise.all(nodes.map((node) => waitForClusterOk(node.port)));
    const seeds = nodes.map((node) => `127.0.0.1:${node.proxy?.port ?? node.port}`);
    return {
      url: `redis+cluster://${seeds.join(",")}`,
      nodes: nodes.map((node) => ({
        port: node.port,
        kill: () => killNode(node),
        restart: () => restartNode(node),
        pause: () => {
          node.paused = node.process.child.kill("SIGSTOP");
        },
        resume: () => {
          node.paused = !node.process.child.kill("SIGCONT");
        },
        proxy: node.proxy,
      })),
      masterPorts: () => masterPorts(nodes),
      slotRanges: () => slotRanges(nodes),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function launchNode(directory: string, index: number, proxied = false): Promise<RunningNode> {
  const [port, busPort] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(directory, `node-${index}-`));
  const proxy = proxied ? await startFaultProxy(port) : undefined;
  return { port, busPort, dir, proxy, paused: false, process: await startServer({ port, busPort, dir, proxy }) };
}

async function startServer(node: Omit<RunningNode, "process" | "paused">): Promise<RunningProcess> {
  const { port, busPort, dir, proxy } = node;
  // The bus port is chosen too: port + 10000, Redis's default, may be taken or out of range.
  const server = startProcess(REDIS_SERVER, [
    ...["--port", String(port), "--cluster-port", String(busPort), "--bind", "127.0.0.1"],
    ...["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"],
    ...["--dir", dir, "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
    ...(proxy === undefined ? [] : ["--cluster-announce-port", String(proxy.port)]),
  ]);
  const ready = await server.waitFor(/Ready to accept connections/, 15_000);
  if (ready.kind !== "matched") {
    await server.stop();
    throw new Error(`redis-server (cluster node) did not start (${ready.kind}): ${server.output()}`);
  }
  return server;
}

async function restartNode(node: RunningNode): Promise<void> {
  node.process = await startServer(node);
  await waitForClusterOk(node.port);
}

async function killNode(node: RunningNode): Promise<void> {
  node.process.child.kill("SIGKILL");
  await node.process.exited;
}

async function waitForClusterOk(port: number): Promise<void> {
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const info = String(await client.call("CLUSTER", "INFO"));
      // Replicas are attached after the slots are assigned: ready once this node also knows all three.
      const replicas = String(await client.call("CLUSTER", "NODES"))
        .split("\n")
        .filter((line) => /\bslave\b/.test(line)).length;
      // A replica counts once it has its master's data: a failover test needs it in sync.
      const replication = String(await client.info("replication"));
      const synced = !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
      if (/cluster_state:ok/.test(info) && replicas === NODES / 2 && synced) return;
      if (Date.now() > deadline) throw new Error(`cluster node ${port} not ready: ${info}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  } finally {
    client.disconnect();
  }
}

/** `ask` of the first node still running. */
async function askRunningNode<T>(nodes: readonly RunningNode[], ask: (client: Redis) => Promise<T>): Promise<T> {
  for (const node of nodes) {
    if (node.paused || node.process.child.exitCode !== null || node.process.child.signalCode !== null) continue;
    const client = new Redis({ port: node.port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
    try {
      return await ask(client);
    } finally {
      client.disconnect();
    }
  }
  throw new Error("no cluster node is running");
}

function masterPorts(nodes: readonly RunningNode[]): Promise<number[]> {
  return askRunningNode(nodes, async (client) =>
    String(await client.call("CLUSTER", "NODES"))
      .split("\n")
      .filter((line) => /\bmaster\b/.test(line) && !/\bfail\b/.test(line))
      .map((line) => Number(/:(\d+)@/.exec(line)?.[1])),
  );
}

/**
 * From `CLUSTER NODES`, not `CLUSTER SLOTS`: the latter leaves out a replica
 * whose replication offset is still 0, as on a cluster nothing was written to.
 */
function slotRanges(nodes: readonly RunningNode[]): Promise<SlotRange[]> {
  return askRunningNode(nodes, async (client) => {
    const lines = String(await client.call("CLUSTER", "NODES"))
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.split(" "));
    const portOf = (fields: string[]) => Number(/:(\d+)@/.exec(fields[1] ?? "")?.[1]);
    const live = lines.filter((fields) => !/\bfail\b/.test(fields[2] ?? ""));
    return live
      .filter((fields) => /\bmaster\b/.test(fields[2] ?? ""))
      .flatMap((master) =>
        master.slice(8).map((range) => {
          const [from = "", to = from] = range.split("-");
          const replicaPorts = live.filter((fields) => fields[3] === master[0]).map(portOf);
          return { from: Number(from), to: Number(to), masterPort: portOf(master), replicaPorts };
        }),
      );
  });
}

/**
 * A test cluster for the file's tests, started before them and stopped
 * after, with ioredis `Cluster` clients on it that are closed with it.
 *
 * @example
 * const cluster = useRedisCluster();
 * it("…", async () => { const store = createRedisStore(cluster.client()); … });
 */
export function useRedisCluster(): { readonly cluster: () => TestRedisCluster; client(): Cluster } {
  let cluster: TestRedisCluster | undefined;
  const clients: Cluster[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    for (const made of clients) made.disconnect();
    await cluster?.stop();
  });
  const running = (): TestRedisCluster => {
    if (cluster === undefined) throw new Error("the test cluster is not started yet (use it inside a test)");
    return cluster;
  };
  return {
    cluster: running,
    client() {
      const seeds = running().nodes.map(({ port }) => ({ host: "127.0.0.1", port }));
      const made = new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
      clients.push(made);
      return made;
    },
  };
}
