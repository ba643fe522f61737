/**
 * The webhook parts of the simulator config: the top-level `webhooks:` key
 * (delivery tuning) and a customer's webhook target. Text forms (`0,5s,5m`,
 * `whsec_a,whsec_b`) are read here, so a config file, an environment variable
 * and a flag all go through the same rules.
 */
import { z } from "zod";
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
    maxConcurrentPerEndpoint: z.number().int().min(1).max(1024).optional(),
  })
  .strict();

const WebhookSecretSchema = z.string().refine(isWebhookSecret, "must be whsec_ + base64 of 24–64 bytes");

/** Where one customer's webhooks go; secrets may be a list or comma-separated text (for rotation). */
export const WebhookTargetConfigSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
    secrets: z
      .preprocess(
        (value) => (typeof value === "string" ? value.split(",").map((secret) => secret.trim()) : value),
        z.array(WebhookSecretSchema).min(1),
      )
      .optional(),
  })
  .strict();
