/**
 * The admin API as the page reaches it: the token comes from the URL
 * fragment (`#token=…`, never sent to the server by the browser) and goes
 * in the Authorization header of every call, the event stream included.
 */
const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";

export const hasToken = (): boolean => token !== "";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { detail?: string; errors?: { pointer: string; detail: string }[] } | undefined,
  ) {
    super(problem?.detail ?? `HTTP ${status}`);
  }
}

let pending = 0;

/** Calls not yet answered: a live reload waits for them, so a slow server is never asked twice at once. */
export const callsInFlight = (): number => pending;

interface CallInit {
  method?: string;
  body?: unknown;
  raw?: string;
  type?: string;
}

export async function call<T>(path: string, init: CallInit = {}): Promise<T> {
  pending++;
  try {
    return await send<T>(path, init);
  } finally {
    pending--;
  }
}

async function send<T>(path: string, init: CallInit) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined) headers["content-type"] = init.type ?? "application/json";
  const res = await fetch(path, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body ?? null,
  });
  const text = await res.text();
  const parsed: unknown = text !== "" && /json/.test(res.headers.get("content-type") ?? "") ? JSON.parse(text) : text;
  if (!res.ok) throw new ApiError(res.status, typeof parsed === "object" ? (parsed as ApiError["problem"]) : undefined);
  return parsed as T;
}

export interface LiveEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** The event stream: live, trying again, or refused for good (the admin token is wrong). */
export type StreamState = "live" | "reconnecting" | "refused";

/**
 * Reads `/_sim/events` with fetch streaming (EventSource cannot send the
 * header) and reconnects after a second when it ends. A 401 ends it: the
 * same token would be refused again. Returns a stop function.
 */
export function streamEvents(onEvent: (event: LiveEvent) => void, onState: (state: StreamState) => void): () => void {
  let stopped = false;
  const controller = new AbortController();
  const connect = async (): Promise<void> => {
    try {
      const res = await fetch("/_sim/events", {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      if (res.status === 401) {
        onState("refused");
        return;
      }
      if (!res.ok || res.body === null) throw new Error(`HTTP ${res.status}`);
      onState("live");
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event !== undefined && data !== undefined) onEvent({ event, data: JSON.parse(data) });
        }
      }
    } catch {
      // A closed or refused stream is retried below, unless the page stopped it.
    }
    onState("reconnecting");
    if (!stopped) setTimeout(() => void connect(), 1000);
  };
  void connect();
  return () => {
    stopped = true;
    controller.abort();
  };
}
