/**
 * Why a command could not take its port, with what to do next: the usual
 * cause is a simulator or listener still running from an earlier try.
 */
export function cannotListen(host: string, port: number, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === "EADDRINUSE") {
    return `${where}: port ${port} is in use (another simulator or listener still running?); choose another with --port N, or --port 0 for any free port`;
  }
  if (code === "EACCES") return `${where}: this user may not bind port ${port}; choose one above 1023, or --port 0`;
  if (code === "EADDRNOTAVAIL") return `${where}: no network interface has the address ${host}; try --host 127.0.0.1`;
  return `${where}: ${error instanceof Error ? error.message : String(error)}`;
}
