/**
 * Our spec's webhook: the flat `WebhookPayloadSchema` body, the id derived
 * from the change, Standard Webhooks headers, written by the default
 * profile's renderer exactly as the simulator's own dispatcher sends them.
 */
import { randomUUID } from "node:crypto";
import { compileRenderer } from "../contract/provider-profile/render.ts";
import type { DeliveryDialect } from "./delivery-dialect.ts";
import { createProviderDialect } from "./provider-dialect.ts";

/**
 * @example
 * const dialect = createStandardDialect();
 * const request = dialect.sign(message, Math.floor(Date.now() / 1000), "whsec_…");
 */
export function createStandardDialect(): DeliveryDialect {
  return {
    ...createProviderDialect(compileRenderer(undefined, { newUuid: randomUUID })),
    name: "airtime-harness spec (Standard Webhooks)",
  };
}
