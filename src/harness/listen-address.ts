/**
 * `--webhook-listen HOST:PORT`: parsed once, and probed in the preflight so
 * an address already in use stops the run before any property, naming the
 * address and the flag, instead of surfacing as EADDRINUSE after the table.
 */
import { createServer } from "node:net";
import { HarnessError } from "./checker.ts";

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export function parseListen(text: string): ListenAddress {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !(port >= 0 && port < 65536))
    throw new HarnessError(`--webhook-listen '${text}' is not HOST:PORT`);
  return { host: match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * Throws a HarnessError when nothing can listen on `text` (in use, or not an
 * address of this machine); binds and closes at once otherwise.
 *
 * @example
 * await assertListenAddressFree("127.0.0.1:8788");
 */
export async function assertListenAddressFree(text: string): Promise<void> {
  const { host, port } = parseListen(text);
  const server = createServer();
  const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once("error", resolve);
    server.listen({ host, port, exclusive: true }, () => resolve(undefined));
  });
  if (failure === undefined) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return;
  }
  const why =
    failure.code === "EADDRINUSE"
      ? "is in use"
      : failure.code === "EADDRNOTAVAIL"
        ? "is not an address of this machine"
        : `cannot be listened on (${failure.code ?? failure.message})`;
  throw new HarnessError(
    `the webhook listen address ${text} ${why}; pick a free port with --webhook-listen HOST:PORT (and point the target's webhook URL at it)`,
  );
}
