/** Loopback names and addresses: a simulator bound there is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(bare);
}
