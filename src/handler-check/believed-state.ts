/**
 * What the handler's app believes about an order, read the way the app
 * offers it: a state endpoint (`--state URL` with `{reference}`) or a command
 * that prints JSON (`--state-command`), and RFC 6901 pointers to the status
 * code and, optionally, a count of side effects applied. An order the app
 * does not know is a 404, an empty output or `null`.
 */
import { sendToUrl } from "../harness/http-client.ts";
import { execFile } from "node:child_process";
import { compilePointer } from "../contract/provider-profile/pointer.ts";

export interface Believed {
  /** The status code the app believes the order has; null when it knows nothing of it. */
  readonly status: number | null;
  /** Side effects applied for the order (credits, ledger rows); null without an effects pointer or order. */
  readonly effects: number | null;
}

export type StateSource =
  { readonly kind: "url"; readonly template: string } | { readonly kind: "command"; readonly command: string };

export interface StateReaderOptions {
  readonly source: StateSource;
  readonly statusPointer: string;
  readonly effectsPointer?: string | undefined;
  readonly timeoutMs: number;
  /** The stored status as a code: the dialect's reading (its words need its table), or `readNumber`. */
  readonly readStatus: (stored: unknown) => number | undefined;
}

export interface StateReader {
  read(reference: string): Promise<Believed>;
}

/** The app's state could not be read: a setup problem, not a verdict on the handler. */
export class StateReadError extends Error {}

const UNKNOWN: Believed = { status: null, effects: null };

/** A number or a numeric string: a status an app keeps as a code, or a count of effects. */
export function readNumber(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

function believedIn(document: unknown, options: StateReaderOptions, where: string): Believed {
  if (document === null) return UNKNOWN;
  const rawStatus = compilePointer(options.statusPointer)(document);
  const status = rawStatus === undefined || rawStatus === null ? null : options.readStatus(rawStatus);
  if (status === undefined) {
    throw new StateReadError(
      `${where}: ${options.statusPointer} is ${JSON.stringify(rawStatus)}, not a status code or word of the dialect`,
    );
  }
  if (options.effectsPointer === undefined) return { status, effects: null };
  const rawEffects = compilePointer(options.effectsPointer)(document);
  const effects = rawEffects === undefined || rawEffects === null ? 0 : readNumber(rawEffects);
  if (effects === undefined) {
    throw new StateReadError(`${where}: ${options.effectsPointer} is ${JSON.stringify(rawEffects)}, not a number`);
  }
  return { status, effects };
}

async function readUrl(url: string, timeoutMs: number): Promise<unknown> {
  const response = await sendToUrl(url, { method: "GET", headers: { accept: "application/json" }, timeoutMs });
  if (response.kind === "network_error") throw new StateReadError(`cannot read ${url}: ${response.message}`);
  const { text } = response;
  if (response.status === 404) return null;
  if (response.status < 200 || response.status > 299)
    throw new StateReadError(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new StateReadError(`${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

function readCommand(command: string, reference: string, timeoutMs: number): Promise<unknown> {
  const line = command.replaceAll("{reference}", reference);
  return new Promise((resolve, reject) => {
    execFile(
      "/bin/sh",
      ["-c", line],
      { env: { ...process.env, AIRTIME_REFERENCE: reference }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(new StateReadError(`\`${line}\` failed: ${(stderr || error.message).trim().slice(0, 200)}`));
          return;
        }
        const text = stdout.trim();
        if (text === "" || text === "null") return resolve(null);
        try {
          resolve(JSON.parse(text) as unknown);
        } catch {
          reject(new StateReadError(`\`${line}\` printed something that is not JSON: ${text.slice(0, 200)}`));
        }
      },
    );
  });
}

/**
 * @example
 * const state = createStateReader({
 *   source: { kind: "url", template: "http://localhost:3000/orders/{reference}" },
 *   statusPointer: "/status", effectsPointer: "/credits", timeoutMs: 10_000, readStatus: readNumber,
 * });
 * await state.read("R-1"); // { status: 20, effects: 1 }
 */
export function createStateReader(options: StateReaderOptions): StateReader {
  const { source } = options;
  return {
    async read(reference) {
      if (source.kind === "url") {
        const url = source.template.replaceAll("{reference}", encodeURIComponent(reference));
        return believedIn(await readUrl(url, options.timeoutMs), options, url);
      }
      const document = await readCommand(source.command, reference, options.timeoutMs);
      return believedIn(document, options, `\`${source.command}\``);
    },
  };
}
