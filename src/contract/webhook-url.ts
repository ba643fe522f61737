/**
 * The one rule for a webhook URL, wherever it enters (admin API, config
 * file, `serve` flags): http or https, at most 2,048 characters, and no
 * `user:password@`. Credentials in the URL would be sent with every attempt
 * and kept in every attempt record; receivers authenticate a webhook by its
 * signature instead.
 */
import { z } from "zod";

export const WEBHOOK_URL_CREDENTIALS_RULE =
  "must not carry credentials (user:password@): they would be stored in every attempt record; the webhook signature authenticates the sender";

/** True when the URL names a user or a password. */
export function hasUrlCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

export const WebhookUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048)
  .refine((url) => !hasUrlCredentials(url), WEBHOOK_URL_CREDENTIALS_RULE)
  .meta({ description: "Where webhooks are sent: an http(s) URL without credentials." });
