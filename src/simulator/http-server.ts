/**
 * The node:http server around the request listener, with a graceful close: stop
 * accepting, let in-flight requests finish (their connections close after
 * the response), close idle keep-alive connections at once.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface HttpServerHandle {
  listen(port: number, host: string): Promise<string>;
  readonly url: string | undefined;
  /** Stops accepting and resolves once every in-flight request has been answered. */
  close(): Promise<void>;
}

export function createHttpServer(listener: RequestListener): HttpServerHandle {
  const server: Server = createServer({ keepAliveTimeout: 5_000 }, listener);
  const busy = new Map<Socket, number>();
  let url: string | undefined;
  let closing = false;

  server.on("connection", (socket: Socket) => {
    busy.set(socket, 0);
    socket.on("close", () => busy.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.on("close", () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      // Once closing, a connection is ended as soon as its last request is answered.
      if (closing && left === 0) socket.end();
    });
    if (closing) res.setHeader("Connection", "close");
  });

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
    close() {
      if (!server.listening) return Promise.resolve();
      closing = true;
      return new Promise((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        for (const [socket, inFlight] of busy) if (inFlight === 0) socket.end();
      });
    },
  };
}
