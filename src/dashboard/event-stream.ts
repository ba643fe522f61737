/**
 * The live event stream behind `GET /_sim/events`: each open response gets
 * every event as a Server-Sent Event. Browsers read it with `fetch`
 * streaming, which can send the admin token in a header (EventSource
 * cannot, and a token in the URL would reach logs).
 */
import type { ServerResponse } from "node:http";

const KEEP_ALIVE_MS = 15_000;

export interface EventStream {
  /** Holds the response open and sends it every event until it closes. */
  attach(res: ServerResponse): void;
  /** Sends `data()` to every open stream; with none open, `data` is not even called (it runs for every order). */
  send(event: string, data: () => unknown): void;
  /** Ends every open stream (the simulator is closing; clients reconnect elsewhere or give up). */
  endAll(): void;
}

export function createEventStream(): EventStream {
  const open = new Set<ServerResponse>();
  return {
    attach(res) {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // Reverse proxies that buffer would hold events back.
        "x-accel-buffering": "no",
      });
      res.write(": connected\n\n");
      open.add(res);
      const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
      keepAlive.unref();
      res.on("close", () => {
        clearInterval(keepAlive);
        open.delete(res);
      });
    },
    send(event, data) {
      if (open.size === 0) return;
      const frame = `event: ${event}\ndata: ${JSON.stringify(data())}\n\n`;
      for (const res of open) res.write(frame);
    },
    endAll() {
      for (const res of open) res.end();
      open.clear();
    },
  };
}
