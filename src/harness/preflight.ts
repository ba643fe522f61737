/**
 * The preflight before any property: a remote target that cannot be reached,
 * or a token it refuses, would otherwise surface as a table of skipped or
 * errored checks with the real cause buried after it. One authenticated read
 * per token settles both, and the run stops with the cause as its first line.
 */
import { HarnessError } from "./checker.ts";
import type { HttpClient, HttpNetworkError } from "./http-client.ts";

/** Plain words for the network errors an integrator meets most. */
const NETWORK_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "no answer in time",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

export interface PreflightInput {
  readonly client: HttpClient;
  readonly url: string;
  /** Each token with the flag that gave it, so a refusal names the flag. */
  readonly tokens: readonly { readonly flag: string; readonly token: string }[];
  /** The status the provider answers a refused token with (401 unless its profile says otherwise). */
  readonly unauthorized: number;
}

/**
 * Throws a HarnessError when the target does not answer or refuses a token.
 *
 * @example
 * await preflight({ client, url, tokens: [{ flag: "--token", token }], unauthorized: 401 });
 */
export async function preflight(input: PreflightInput): Promise<void> {
  for (const { flag, token } of input.tokens) {
    const outcome = await input.client.send({
      method: "GET",
      path: "/v1/balance",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    if (outcome.kind === "network_error") throw new HarnessError(describeUnreachable(input.url, outcome));
    if (outcome.status === input.unauthorized) {
      throw new HarnessError(
        `${flag} was refused by ${input.url}: ${outcome.status} on GET /v1/balance; check the token (and that it belongs to this target)`,
      );
    }
  }
}

/** "cannot reach URL: connection refused (ECONNREFUSED)": the cause first, the code for searching. */
function describeUnreachable(url: string, error: HttpNetworkError): string {
  const cause = NETWORK_CAUSES[error.code] ?? error.message;
  return `cannot reach ${url}: ${cause} (${error.code})`;
}
