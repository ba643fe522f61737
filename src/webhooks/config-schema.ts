/**
 * The webhook parts of the simulator config: the top-level `webhooks:` key
 * (delivery tuning) and a customer's webhook target. Text forms (`0,5s,5m`,
 * `whsec_a,whsec_b`) are read here, so a config file, an environment variable
 * and a flag all go through the same rules.
 */
import { z } from "zod";
import { WebhookUrlSchema } from "../contract/webhook-url.ts";
import { parseDuration, resolveSchedule, resolveTimeout } from "./schedule.ts";
import { isWebhookSecret } from "./signing.ts";

/** Runs a parser that throws RangeError as a zod transform. */
function parsed<In, Out>(parse: (input: In) => Out) {
  return (input: In, ctx: z.RefinementCtx) => {
    try {
      return parse(input);
    } catch (error) {
      ctx.issues.push({ code: "custom", message: (error as Error).message, input });
      return z.NEVER;
    }
  };
}

const DurationSchema = z.union([z.number().int().min(0), z.string().transform(parsed(parseDuration))]);

/**
 * The config file's `webhooks:` key.
 *
 * @example
 * // simulator.yaml
 * // webhooks:
 * //   schedule: 0,5s,5m,30m   # or a list: [0, 5s, 5m]
 * //   timeout: 10s
 * //   jitter: 0.1
 * //   intermediate: false
 * //   maxConcurrentAttempts: 256
 * //   maxConcurrentPerEndpoint: 32
 * //   maxQueuedPerEndpoint: 1000
 */
export const WebhooksConfigSchema = z
  .object({
    schedule: z
      .union([z.string().transform(parsed(resolveSchedule)), z.array(DurationSchema).min(1)])
      .optional()
      .meta({ description: "Delay before each attempt: `0,5s,5m` or a list; default Standard Webhooks' example." }),
    timeout: z
      .union([z.number(), z.string()])
      .transform(parsed(resolveTimeout))
      .optional()
      .meta({ description: "Per-attempt timeout, e.g. 15s (default)." }),
    jitter: z.number().min(0).max(1).optional().meta({ description: "Relative jitter on retry delays (default 0.1)." }),
    intermediate: z.boolean().optional().meta({ description: "Also send pending-class statuses (default false)." }),
    maxConcurrentAttempts: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({ description: "Attempts in flight at once, all endpoints together (default 256)." }),
    maxConcurrentPerEndpoint: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .optional()
      .meta({ description: "Attempts in flight at once to one customer's endpoint (default 32)." }),
    maxQueuedPerEndpoint: z.number().int().min(0).max(1_000_000).optional().meta({
      description:
        "Attempts waiting for a slot, per endpoint; beyond it the oldest fails as `queue_overflow` (default 1000).",
    }),
  })
  .strict();

const WebhookSecretSchema = z.string().refine(isWebhookSecret, "must be whsec_ + base64 of 24–64 bytes");

/** Where one customer's webhooks go; secrets may be a list or comma-separated text (for rotation). */
export const WebhookTargetConfigSchema = z
  .object({
    url: WebhookUrlSchema,
    secrets: z
      .preprocess(
        (value) => (typeof value === "string" ? value.split(",").map((secret) => secret.trim()) : value),
        z.array(WebhookSecretSchema).min(1),
      )
      .optional(),
  })
  .strict();
