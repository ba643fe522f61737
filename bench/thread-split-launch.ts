/**
 * Starts a stand-in server of `npm run bench:split` as its own process and
 * waits until it listens: the bench and its test start them the same way.
 */
import { resolve } from "node:path";
import { freePort, type RunningProcess, startProcess } from "../src/harness/child-process.ts";

const SERVER = resolve(import.meta.dirname, "thread-split-server.ts");

export interface SplitServerSettings {
  readonly shape: "bare" | "one" | "split";
  readonly port: number;
  readonly statelessUs: number;
  readonly stateUs: number;
}

/** The shape's server on a free port, once it listens; the caller stops it. */
export async function startSplitServer(
  settings: Omit<SplitServerSettings, "port">,
): Promise<RunningProcess & { readonly url: string }> {
  const full: SplitServerSettings = { ...settings, port: await freePort() };
  const server = startProcess(process.execPath, ["--import", "tsx", SERVER, JSON.stringify(full)]);
  const started = await server.waitFor(/listening on (http:\/\/\S+)/, 15_000);
  if (started.kind !== "matched" || started.match[1] === undefined) {
    await server.stop();
    throw new Error(`the ${settings.shape} server did not start (${started.kind}): ${server.output()}`);
  }
  return Object.assign(server, { url: started.match[1] });
}
