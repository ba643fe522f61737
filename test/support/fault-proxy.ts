/**
 * A TCP proxy for fault tests, between a client (the simulator) and one
 * server (a redis-server, or one node of a cluster). It forwards bytes both
 * ways, in order, and a test turns faults on and off while traffic flows:
 *
 * - `latency(ms, jitterMs)`: every chunk waits `ms ± jitterMs` (uniform)
 *   before it is forwarded, in each direction, never overtaking the one
 *   before it, as on a slow link;
 * - `bandwidth(bytesPerSecond)`: each direction forwards at most that many
 *   bytes a second (chunks are cut to 16 KiB so the rate is smooth);
 * - `resetAll()`: every open connection is reset (RST to the client, the
 *   server's side closed), as a middlebox or a restarted NAT does; new
 *   connections are accepted as before;
 * - `blackhole()`: connections are accepted, nothing is forwarded either
 *   way, and nothing is closed: a partition that drops packets. What was sent
 *   meanwhile is held, as TCP would retransmit it, and delivered on `heal()`;
 * - `heal()`: every fault off, and what a blackhole held flows on.
 *
 * Toxiproxy does the same as a server of its own; this one lives in the test
 * process, so a test drives it step by step without another daemon.
 */
import { createServer, type Server, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";

export interface FaultProxy {
  /** The loopback port clients connect to. */
  readonly port: number;
  /** Connections open through it now. */
  readonly connections: number;
  /** Adds `ms` ± `jitterMs` to every chunk, each way; `latency(0)` takes it off. */
  latency(ms: number, jitterMs?: number): void;
  /** Caps each direction at `bytesPerSecond`; `Infinity` lifts the cap. */
  bandwidth(bytesPerSecond: number): void;
  /** Resets every open connection; resolves to how many it reset. */
  resetAll(): number;
  /** Stops forwarding anything, holding it, and closes nothing. */
  blackhole(): void;
  /** Every fault off; what was held flows on. */
  heal(): void;
  close(): Promise<void>;
}

interface Faults {
  latencyMs: number;
  jitterMs: number;
  bytesPerSecond: number;
  blackholed: boolean;
}

const CHUNK = 16 * 1024;
/** Bytes held in one direction before the sender is paused, as a full TCP window would. */
const HIGH_WATER = 4 * 1024 * 1024;

/**
 * One direction of one connection: chunks queued with the time each may
 * leave, written in order when that time has come and the bandwidth allows,
 * none while blackholed.
 */
function createPipe(from: Socket, to: Socket, faults: Faults) {
  const queue: { chunk: Buffer; readyAt: number }[] = [];
  let queued = 0;
  let lastReadyAt = 0;
  let linkFreeAt = 0;
  let timer: NodeJS.Timeout | undefined;

  function pump(): void {
    timer = undefined;
    while (queue.length > 0 && !faults.blackholed && !to.destroyed) {
      const now = Date.now();
      const head = queue[0] as { chunk: Buffer; readyAt: number };
      const at = Math.max(head.readyAt, linkFreeAt);
      if (at > now) {
        timer = setTimeout(pump, at - now);
        return;
      }
      queue.shift();
      queued -= head.chunk.length;
      to.write(head.chunk);
      if (Number.isFinite(faults.bytesPerSecond)) {
        linkFreeAt = Math.max(linkFreeAt, now) + (head.chunk.length * 1000) / faults.bytesPerSecond;
      }
    }
    if (queued < HIGH_WATER && from.isPaused()) from.resume();
  }

  from.on("data", (data: Buffer) => {
    const jitter = faults.jitterMs === 0 ? 0 : (Math.random() * 2 - 1) * faults.jitterMs;
    // Never before the chunk ahead of it: a link reorders nothing.
    const readyAt = Math.max(lastReadyAt, Date.now() + Math.max(0, faults.latencyMs + jitter));
    lastReadyAt = readyAt;
    for (let offset = 0; offset < data.length; offset += CHUNK) {
      const chunk = data.subarray(offset, offset + CHUNK);
      queue.push({ chunk, readyAt });
      queued += chunk.length;
    }
    if (queued >= HIGH_WATER) from.pause();
    if (timer === undefined) pump();
  });

  return {
    /** Looks again now: a fault changed, or a blackhole healed. */
    kick(): void {
      if (timer !== undefined) clearTimeout(timer);
      linkFreeAt = Math.min(linkFreeAt, Date.now());
      pump();
    },
    stop(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      queue.length = 0;
    },
  };
}

/**
 * @example
 * const proxy = await startFaultProxy(redis.port);
 * const sim = await createSimulator({ store: `redis://127.0.0.1:${proxy.port}/0` });
 * proxy.blackhole(); // … requests answer 503 store_unavailable
 * proxy.heal();
 */
export async function startFaultProxy(upstreamPort: number, upstreamHost = "127.0.0.1"): Promise<FaultProxy> {
  const faults: Faults = { latencyMs: 0, jitterMs: 0, bytesPerSecond: Number.POSITIVE_INFINITY, blackholed: false };
  const open = new Set<{ client: Socket; server: Socket; pipes: ReturnType<typeof createPipe>[] }>();

  const proxy: Server = createServer((client) => {
    const server = connect(upstreamPort, upstreamHost);
    const link = { client, server, pipes: [createPipe(client, server, faults), createPipe(server, client, faults)] };
    open.add(link);
    const drop = () => {
      if (!open.delete(link)) return;
      for (const pipe of link.pipes) pipe.stop();
      client.destroy();
      server.destroy();
    };
    client.on("close", drop).on("error", drop);
    server.on("close", drop).on("error", drop);
  });
  proxy.listen(0, "127.0.0.1");
  await new Promise((resolve) => proxy.once("listening", resolve));
  const kickAll = () => {
    for (const link of open) for (const pipe of link.pipes) pipe.kick();
  };

  return {
    port: (proxy.address() as AddressInfo).port,
    get connections() {
      return open.size;
    },
    latency(ms, jitterMs = 0) {
      faults.latencyMs = ms;
      faults.jitterMs = jitterMs;
    },
    bandwidth(bytesPerSecond) {
      faults.bytesPerSecond = bytesPerSecond;
      kickAll();
    },
    resetAll() {
      const links = [...open];
      open.clear();
      for (const { client, server, pipes } of links) {
        for (const pipe of pipes) pipe.stop();
        client.resetAndDestroy();
        server.destroy();
      }
      return links.length;
    },
    blackhole() {
      faults.blackholed = true;
    },
    heal() {
      Object.assign(faults, { latencyMs: 0, jitterMs: 0, bytesPerSecond: Number.POSITIVE_INFINITY, blackholed: false });
      kickAll();
    },
    async close() {
      for (const { client, server, pipes } of open) {
        for (const pipe of pipes) pipe.stop();
        client.destroy();
        server.destroy();
      }
      open.clear();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
