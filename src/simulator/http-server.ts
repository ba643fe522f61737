/**
 * The node:http server around the request listener, with a graceful close: stop
 * accepting, let in-flight requests finish (their connections close after
 * the response), close idle keep-alive connections at once, and at the
 * deadline destroy whatever is still open. Node stops enforcing its request
 * timeouts once `server.close()` is called, so a client that sent half a body
 * and stalled would hold the close open for ever: the sockets are tracked
 * here for that reason.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface HttpCloseReport {
  /** Requests still unanswered at the deadline: their connections were destroyed. */
  readonly requestsCutOff: number;
}

export interface HttpServerHandle {
  listen(port: number, host: string): Promise<string>;
  readonly url: string | undefined;
  /**
   * Stops accepting and resolves once every in-flight request has been
   * answered or, when `deadline` aborts first, once the connections still open
   * have been destroyed.
   */
  close(deadline?: AbortSignal): Promise<HttpCloseReport>;
}

export function createHttpServer(listener: RequestListener): HttpServerHandle {
  const server: Server = createServer({ keepAliveTimeout: 5_000 }, listener);
  const busy = new Map<Socket, number>();
  const answering = new Set<ServerResponse>();
  let url: string | undefined;
  let closing = false;
  let closed: Promise<HttpCloseReport> | undefined;

  server.on("connection", (socket: Socket) => {
    busy.set(socket, 0);
    socket.on("close", () => busy.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    answering.add(res);
    res.on("close", () => {
      answering.delete(res);
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      // Once closing, a connection is ended as soon as its last request is answered.
      if (closing && left === 0) socket.end();
    });
    if (closing) res.setHeader("Connection", "close");
  });

  function cutOff(): number {
    let unanswered = 0;
    for (const [socket, inFlight] of busy) {
      unanswered += inFlight;
      socket.destroy();
    }
    return unanswered;
  }

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
    close(deadline) {
      if (closed !== undefined) return closed;
      if (!server.listening) return Promise.resolve({ requestsCutOff: 0 });
      closing = true;
      closed = new Promise((resolve, reject) => {
        let requestsCutOff = 0;
        const onDeadline = () => {
          requestsCutOff = cutOff();
        };
        server.close((error) => {
          deadline?.removeEventListener("abort", onDeadline);
          if (error === undefined) resolve({ requestsCutOff });
          else reject(error);
        });
        for (const [socket, inFlight] of busy) if (inFlight === 0) socket.end();
        // The client learns the connection ends with the answer it is waiting for.
        for (const res of answering) if (!res.headersSent) res.setHeader("Connection", "close");
        if (deadline?.aborted === true) onDeadline();
        else deadline?.addEventListener("abort", onDeadline, { once: true });
      });
      return closed;
    },
  };
}
