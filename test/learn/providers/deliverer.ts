/**
 * How the test providers post webhooks: each event once, then again after
 * 300 ms, 1.5 s and 5 s while the receiver does not acknowledge it, each
 * attempt signed afresh by the dialect under the event's one id.
 */
import { randomUUID } from "node:crypto";
import type { Dialect } from "./dialect.ts";

const RETRY_MS = [300, 1500, 5000];

export function createDeliverer(dialect: Dialect, registration: { readonly url: string; readonly secret: string }) {
  const controller = new AbortController();
  const timers = new Set<NodeJS.Timeout>();

  async function attempt(id: string, body: string): Promise<boolean> {
    const headers = dialect.sign(body, id, registration.secret, Math.floor(Date.now() / 1000));
    try {
      const response = await fetch(registration.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(5000)]),
      });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }

  function deliver(id: string, body: string, retry: number): void {
    void attempt(id, body).then((delivered) => {
      const wait = RETRY_MS[retry];
      if (delivered || wait === undefined || controller.signal.aborted) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver(id, body, retry + 1);
      }, wait);
      timers.add(timer);
    });
  }

  return {
    /** `event` writes the body under the event's id (a body may carry it). */
    send(event: (id: string) => unknown): void {
      const id = `evt_${randomUUID().replaceAll("-", "")}`;
      const body = event(id);
      if (body !== undefined) deliver(id, JSON.stringify(body), 0);
    },
    close(): void {
      controller.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
