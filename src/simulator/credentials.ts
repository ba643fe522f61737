/**
 * Secrets the simulator hands out: bearer tokens, API keys, the admin token
 * and webhook secrets. They come from `node:crypto`, never from the seeded
 * source, so a seed that replays a run does not make its secrets guessable.
 */
import { randomBytes } from "node:crypto";

export function generateToken(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString("base64url")}`;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}
