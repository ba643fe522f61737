/**
 * Authentication: every public endpoint answers a request without a token,
 * with a wrong token or with a malformed Authorization header with 401
 * problem+json (missing_token / invalid_token) and WWW-Authenticate: Bearer.
 */
import fc from "fast-check";
import type { CallResult } from "../api.ts";
import type { HarnessContext } from "../harness-context.ts";
import { directApi } from "../harness-context.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import { refusalMismatch, statedRefusal } from "../stated-refusal.ts";

type Credential =
  | { readonly kind: "none" }
  | { readonly kind: "wrong"; readonly token: string }
  | { readonly kind: "malformed"; readonly header: string };

const credentialArbitrary: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant<Credential>({ kind: "none" }),
  fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).map((token): Credential => ({ kind: "wrong", token: `wrong-${token}` })),
  fc.constantFrom<Credential>(
    { kind: "malformed", header: "Bearer" },
    { kind: "malformed", header: "Basic ZGVtbzpzZWNyZXQ=" },
    { kind: "malformed", header: "Token abc.def" },
    { kind: "malformed", header: "bearer" },
  ),
);

const ENDPOINTS = ["send_airtime", "lookup", "balance"] as const;

export function createAuthProperty(harness: HarnessContext): ContractProperty {
  return {
    name: "auth",
    summary: "no token, wrong tokens and malformed Authorization headers on every endpoint",
    checks: [...CONFORMANCE_CHECKS, "auth_required"],
    build(env) {
      return fc.asyncProperty(fc.constantFrom(...ENDPOINTS), credentialArbitrary, (endpoint, credential) =>
        recordRun(env.recorder, async (transcript) => {
          const prefix = harness.nextPrefix();
          const api = directApi(harness, env.checker, prefix);
          const headers: Record<string, string> =
            credential.kind === "wrong"
              ? { authorization: `Bearer ${credential.token}` }
              : credential.kind === "malformed"
                ? { authorization: credential.header }
                : {};
          transcript.step(`call ${endpoint} ${describe(credential)}`);
          const result = await call(api, endpoint, headers, prefix, harness);
          if (result.kind !== "response") return;
          const { response } = result;
          const code = harness.provider.readErrorCode(response.json);
          const expectedCodes =
            credential.kind === "none"
              ? ["missing_token"]
              : credential.kind === "wrong"
                ? ["invalid_token"]
                : ["missing_token", "invalid_token"];
          if (harness.profile === "interface") {
            // §5 asks for the bearer token; the status and body of a refusal are not shown (§7). What the
            // profile states is judged; left out, any refusal (4xx) will do.
            const mismatch = refusalMismatch(statedRefusal(harness.provider, "unauthorized"), {
              status: response.status,
              code,
              hasId: false,
            });
            env.checker.that(
              "auth_required",
              mismatch === undefined,
              () => `${endpoint} ${describe(credential)}: ${mismatch}`,
            );
            return;
          }
          env.checker.that(
            "auth_required",
            response.status === 401 && expectedCodes.includes(String(code)),
            () =>
              `${endpoint} ${describe(credential)}: expected 401 ${expectedCodes.join("/")}, got HTTP ${response.status} ${String(code ?? "")}`,
          );
          env.checker.that(
            "auth_required",
            /^Bearer\b/i.test(response.headers["www-authenticate"] ?? ""),
            () => `${endpoint} ${describe(credential)}: 401 without WWW-Authenticate: Bearer`,
          );
        }),
      );
    },
  };
}

function describe(credential: Credential): string {
  switch (credential.kind) {
    case "none":
      return "without a token";
    case "wrong":
      return "with a wrong token";
    case "malformed":
      return `with Authorization: ${credential.header}`;
    default:
      return assertNever(credential);
  }
}

function call(
  api: ReturnType<typeof directApi>,
  endpoint: (typeof ENDPOINTS)[number],
  headers: Record<string, string>,
  prefix: string,
  harness: HarnessContext,
): Promise<CallResult> {
  switch (endpoint) {
    case "lookup":
      return api.raw(
        { method: "GET", path: `/v1/airtime/${prefix}-auth`, headers: { accept: "application/json", ...headers } },
        "lookup",
      );
    case "balance":
      return api.raw(
        { method: "GET", path: "/v1/balance", headers: { accept: "application/json", ...headers } },
        "balance",
      );
    case "send_airtime": {
      const recipient = harness.recipients[0];
      // Under a budget a valid order is sent only while it fits; otherwise an amount of 0,
      // which a correct target never reaches since authentication comes first.
      const amount = harness.budget.reserve(1000) ? 10 : 0;
      return api.sendAirtime({
        token: undefined,
        body: { account: recipient?.account ?? "0712000101", amount, currency: "KES", reference: `${prefix}-auth` },
        key: `${prefix}-auth`,
        headers,
      });
    }
    default:
      return assertNever(endpoint);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
