/**
 * A small fetch client for the three endpoints of the public API, typed from
 * the contract's schemas. It reports what the server answered (status and
 * body) rather than throwing on a 4xx: tests assert on refusals too.
 */
import type {
  BalanceResponse,
  FailedOrderResponse,
  Problem,
  SendAirtimeRequest,
  SendAirtimeResponse,
  TransactionStatusResponse,
} from "../contract/public-schemas.ts";

export interface ClientResponse<Body> {
  /** The HTTP status. */
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body: the success shape on 2xx, a problem (or failed order) otherwise. */
  readonly body: Body;
}

export interface SendAirtimeCallOptions {
  /** Sent as the `Idempotency-Key` header. */
  readonly idempotencyKey?: string | undefined;
}

export interface TestClient {
  /** The simulator's base URL. */
  readonly baseUrl: string;
  /** `POST /v1/airtime`. */
  sendAirtime(
    order: SendAirtimeRequest,
    options?: SendAirtimeCallOptions,
  ): Promise<ClientResponse<SendAirtimeResponse | FailedOrderResponse | Problem>>;
  /** `GET /v1/airtime/{reference}`. */
  getTransaction(reference: string): Promise<ClientResponse<TransactionStatusResponse | Problem>>;
  /** `GET /v1/balance`. */
  getBalance(): Promise<ClientResponse<BalanceResponse | Problem>>;
}

/** A client for `baseUrl` that sends `token` as its bearer token. */
export function createTestClient(baseUrl: string, token: string): TestClient {
  async function call<Body>(path: string, init: RequestInit = {}): Promise<ClientResponse<Body>> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${token}`);
    const response = await fetch(`${baseUrl}${path}`, { ...init, headers });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
  }

  return {
    baseUrl,
    sendAirtime(order, options = {}) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
      return call("/v1/airtime", { method: "POST", headers, body: JSON.stringify(order) });
    },
    getTransaction: (reference) => call(`/v1/airtime/${encodeURIComponent(reference)}`),
    getBalance: () => call("/v1/balance"),
  };
}
