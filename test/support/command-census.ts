/**
 * Counts the commands Redis masters run while a workload runs, two ways:
 * per master, from Redis's own `INFO commandstats` (reset at the start with
 * `CONFIG RESETSTAT`), and per hash slot, from `MONITOR` on every master,
 * each command counted in the slot of its first key (a script's in the slot
 * of its keys; commands a script runs are shown and counted one by one, as
 * commandstats counts them). The census's own commands (`CONFIG`, `INFO`,
 * `MONITOR`, `ECHO`) are left out of both.
 */
import { connect, type Socket } from "node:net";
import { Redis } from "ioredis";
import { keySlot } from "../../src/redis/key-slot.ts";

/** Commands that name no key: counted per master, in no slot. */
const KEYLESS = new Set([
  "ping",
  "info",
  "cluster",
  "client",
  "readonly",
  "select",
  "script",
  "auth",
  "hello",
  "command",
  "multi",
  "exec",
  "discard",
  "wait",
  "publish",
  "subscribe",
  "time",
  "quit",
]);
const OWN = new Set(["config", "info", "monitor", "echo"]);
/** What the census echoes on each master once done: its MONITOR has shown everything before it once it shows this. */
const END = "census-end";

export interface Census {
  /** Commands each master ran, by its port, from `INFO commandstats`. */
  readonly perMaster: ReadonlyMap<number, number>;
  /** Commands naming a key, by the key's slot, from `MONITOR`. */
  readonly perSlot: ReadonlyMap<number, number>;
  /** Commands `MONITOR` showed naming no key. */
  readonly keyless: number;
  /**
   * Commands by what sent them: a script call with the commands it ran,
   * under `script <its first key's shape>`; any other command under its name.
   */
  readonly perCall: ReadonlyMap<string, number>;
  /** Each master's commands (`MONITOR`), by the shape of the key, as `perCall`. */
  readonly perMasterCall: ReadonlyMap<number, ReadonlyMap<string, number>>;
}

/** A key with its hash tag's variable part named: `ah:{cus_1}:orders` → `{C}:orders`, `ah:{jobs:3}:due` → `{jobs:S}:due`. */
function keyShape(key: string): string {
  const tagged = /\{([^}]*)\}(.*)$/.exec(key);
  if (tagged === null) return key;
  const [tag = "", rest = ""] = [tagged[1], tagged[2]];
  const shard = /^([a-z]+):\d+$/.exec(tag);
  const shape =
    shard !== null ? `${shard[1]}:S` : ["idx", "issued", "journal", "clock", "deliveries"].includes(tag) ? tag : "C";
  return `{${shape}}${rest}`;
}

/** The slot of a command's first key, or undefined for one that names none. */
function slotOfCall(args: readonly string[]): number | undefined {
  const name = (args[0] ?? "").toLowerCase();
  if (KEYLESS.has(name) || OWN.has(name)) return undefined;
  if (name === "evalsha" || name === "eval" || name === "fcall") {
    return Number(args[2]) > 0 ? keySlot(args[3] ?? "") : undefined;
  }
  return args[1] === undefined ? undefined : keySlot(args[1]);
}

function commandCalls(info: string): number {
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (!OWN.has(match[1] as string)) calls += Number(match[2]);
  }
  return calls;
}

type MonitorListener = (args: string[], source: string) => void;

/**
 * `MONITOR` on its own socket, its lines parsed here. ioredis's `monitor()`
 * enters monitoring mode only a microtask after `MONITOR`'s `OK`, so a busy
 * server's first lines, arriving in the same chunk as the `OK`, are taken
 * for replies to commands never sent and thrown as a "command queue state
 * error". Each line is a simple string: `+<time> [<db> <source>] "<cmd>"
 * "<arg>"…`, quotes inside arguments escaped; a line is parsed as ioredis
 * parses it.
 */
async function monitorOn(port: number, listener: MonitorListener): Promise<Socket> {
  const socket = connect({ port, host: "127.0.0.1" });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let pending = "";
  let started = false;
  const ready = new Promise<void>((resolve) => {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\r\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!started && line === "+OK") {
          started = true;
          resolve();
          continue;
        }
        const argIndex = line.indexOf('"');
        if (!line.startsWith("+") || argIndex < 0) continue;
        const args = line
          .slice(argIndex + 1, -1)
          .split('" "')
          .map((arg) => arg.replace(/\\"/g, '"'));
        const [, source = ""] = line.slice(line.indexOf("[") + 1, argIndex - 2).split(" ");
        listener(args, source);
      }
    });
  });
  socket.write("MONITOR\r\n");
  await ready;
  return socket;
}

/**
 * Resets the masters' statistics and starts watching them; `stop` ends the
 * watch and returns the counts.
 *
 * @example
 * const census = await watchCommands(await cluster.masterPorts());
 * await runTheWorkload();
 * const { perMaster, perSlot } = await census.stop();
 */
export async function watchCommands(ports: readonly number[]): Promise<{ stop(): Promise<Census> }> {
  const admins = ports.map((port) => new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 }));
  const perSlot = new Map<number, number>();
  const perMasterCall = new Map<number, Map<string, number>>(ports.map((port) => [port, new Map()]));
  const perCall = new Map<string, number>();
  let keyless = 0;
  const ends = new Map<number, () => void>();
  const ended = ports.map((port) => new Promise<void>((resolve) => ends.set(port, resolve)));
  const listenerFor = (port: number): MonitorListener => {
    const calls = perMasterCall.get(port) as Map<string, number>;
    let script: string | undefined;
    return (args, source) => {
      const name = (args[0] ?? "").toLowerCase();
      if (name === "echo" && args[1] === END) ends.get(port)?.();
      if (name === "evalsha" || name === "eval") script = `script ${keyShape(args[3] ?? "")}`;
      else if (source !== "lua") script = undefined;
      const call = script ?? name;
      if (!OWN.has(name)) {
        calls.set(call, (calls.get(call) ?? 0) + 1);
        perCall.set(call, (perCall.get(call) ?? 0) + 1);
      }
      const slot = slotOfCall(args);
      if (slot !== undefined) perSlot.set(slot, (perSlot.get(slot) ?? 0) + 1);
      else if (!OWN.has(name)) keyless += 1;
    };
  };
  const monitors = await Promise.all(ports.map((port) => monitorOn(port, listenerFor(port))));
  await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
  return {
    async stop() {
      const infos = await Promise.all(admins.map((admin) => admin.info("commandstats")));
      await Promise.all(admins.map((admin) => admin.echo(END)));
      await Promise.all(ended);
      for (const monitor of monitors) monitor.destroy();
      for (const admin of admins) admin.disconnect();
      return {
        perMaster: new Map(ports.map((port, index) => [port, commandCalls(infos[index] ?? "")])),
        perSlot,
        keyless,
        perCall,
        perMasterCall,
      };
    },
  };
}

export interface CensusSummary {
  /** Each master's commands, as a share of the mean over the masters (1 is the mean). */
  readonly masterRatios: readonly number[];
  /** The busiest slot, its share of every command naming a key, and the commands in it. */
  readonly topSlot: { readonly slot: number; readonly share: number; readonly commands: number };
  readonly total: number;
}

export function summarize(census: Census): CensusSummary {
  const counts = [...census.perMaster.values()];
  const mean = counts.reduce((sum, one) => sum + one, 0) / counts.length;
  const keyed = [...census.perSlot.values()].reduce((sum, one) => sum + one, 0);
  const [slot, commands] = [...census.perSlot].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
  return {
    masterRatios: counts.map((count) => count / mean),
    topSlot: { slot, share: keyed === 0 ? 0 : commands / keyed, commands },
    total: counts.reduce((sum, one) => sum + one, 0),
  };
}
