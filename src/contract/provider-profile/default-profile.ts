/**
 * Our spec as a provider profile: the default every section falls back to.
 * `examples/providers/airtime-harness.yaml` writes the same out as a file.
 */
import { SERVICES } from "../operators.ts";
import { DEFAULT_ORDER_LIMITS, REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "../public-schemas.ts";
import { DEFAULT_STATUS_DEFINITIONS, REVERSED_STATUS } from "../status-codes.ts";
import type { ProviderProfile } from "./schema.ts";

/** The status our spec writes for Reversed belongs to its own class: final, refunded, reachable from Success. */
const SPEC_STATUS_TABLE = DEFAULT_STATUS_DEFINITIONS.map((definition) => ({
  code: definition.code,
  class: definition.code === REVERSED_STATUS ? ("reversed" as const) : definition.class,
  message: definition.message,
}));

/** Every section filled in: what `compileProfile` merges a file's sections over. */
export const DEFAULT_PROVIDER_PROFILE = {
  profile: 1,
  name: "airtime-harness (our spec)",
  bodies: {
    order: { id: "/id", reference: "/reference", status: "/status", message: "/message" },
    lookup: { id: "/id", reference: "/reference", status: "/status", amount: "/amount" },
    webhook: { id: "/id", reference: "/reference", status: "/status", amount: "/amount" },
    balance: { amount: "/amount" },
    error: { code: "/code", message: "/detail" },
  },
  money: "number",
  statuses: {
    values: "code",
    table: SPEC_STATUS_TABLE,
    transitions: [
      ["pending", "pending"],
      ["pending", "success"],
      ["pending", "failed"],
      ["pending", "reversed"],
      ["success", "reversed"],
    ],
  },
  http: { invalidInput: 400, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
  // Our spec's codes vary by cause (missing_token, invalid_token …); strict judges them with the catalogue.
  errorCodes: {},
  webhooks: {
    event: { pointer: "/type", values: ["airtime.status"] },
    deliveryId: { header: "webhook-id" },
    signing: { scheme: "standard-webhooks" },
  },
  domain: {
    amount: { min: DEFAULT_ORDER_LIMITS.minAmount, max: DEFAULT_ORDER_LIMITS.maxAmount, decimals: 2 },
    reference: { pattern: REFERENCE_PATTERN.source, maxLength: REFERENCE_MAX_LENGTH },
    accounts: ["local", "international", "e164", "short"],
    services: [...SERVICES],
    currency: "KES",
  },
} as const satisfies ProviderProfile;
