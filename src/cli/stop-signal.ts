/**
 * How a long-running command (`listen`, `listen --forward-to`) waits to be
 * stopped: the first SIGINT or SIGTERM, named so the command can say which.
 */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
}
