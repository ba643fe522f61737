/**
 * A plain webhook receiver on a real port that records each request's
 * headers and exact body and answers 204: what a provider's webhooks look
 * like on the wire, whatever their dialect.
 */
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RecordingReceiver {
  /** Where to send, ending in /hooks. */
  readonly url: string;
  readonly received: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingReceiver(): Promise<RecordingReceiver> {
  const received: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(204).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
