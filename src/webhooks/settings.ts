/**
 * Webhook settings from outside the code: the config file's top-level
 * `webhooks:` key, and the `serve` flags that point the demo customer at a
 * receiver and tune delivery.
 */
import { z } from "zod";
import type { ServeFlag, ServeSettings } from "../cli/serve.ts";
import { parseDuration, parseSchedule, resolveSchedule, resolveTimeout } from "./schedule.ts";
import { isWebhookSecret } from "./signing.ts";
import type { WebhookPluginOptions } from "./webhook-plugin.ts";

/** Runs a parser that throws RangeError as a zod transform. */
function parsed<T>(parse: (text: string) => T) {
  return (text: string, ctx: z.RefinementCtx) => {
    try {
      return parse(text);
    } catch (error) {
      ctx.issues.push({ code: "custom", message: (error as Error).message, input: text });
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
      .union([z.string().transform(parsed(parseSchedule)), z.array(DurationSchema).min(1)])
      .optional()
      .meta({ description: "Delay before each attempt: `0,5s,5m` or a list; default Standard Webhooks' example." }),
    timeout: DurationSchema.optional().meta({ description: "Per-attempt timeout, e.g. 15s (default)." }),
    jitter: z.number().min(0).max(1).optional().meta({ description: "Relative jitter on retry delays (default 0.1)." }),
    intermediate: z.boolean().optional().meta({ description: "Also send pending-class statuses (default false)." }),
    maxConcurrentPerEndpoint: z.number().int().min(1).max(1024).optional(),
  })
  .strict();
export type WebhooksConfig = z.output<typeof WebhooksConfigSchema>;

/** The `webhooks:` config → the plugin's options. */
export function webhookOptionsFromConfig(config: WebhooksConfig): WebhookPluginOptions {
  return {
    ...(config.schedule === undefined ? {} : { schedule: config.schedule }),
    ...(config.timeout === undefined ? {} : { timeout: config.timeout }),
    ...(config.jitter === undefined ? {} : { jitter: config.jitter }),
    ...(config.intermediate === undefined ? {} : { intermediate: config.intermediate }),
    ...(config.maxConcurrentPerEndpoint === undefined
      ? {}
      : { maxConcurrentPerEndpoint: config.maxConcurrentPerEndpoint }),
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function webhookOptionsOf(settings: ServeSettings): Mutable<WebhookPluginOptions> {
  const current = settings.options.webhooks;
  const next: Mutable<WebhookPluginOptions> = current === false || current === undefined ? {} : { ...current };
  settings.options.webhooks = next;
  return next;
}

type DemoOptions = Exclude<NonNullable<ServeSettings["options"]["demo"]>, false>;

function setDemoWebhook(settings: ServeSettings, change: (webhook: DemoOptions["webhook"]) => DemoOptions["webhook"]) {
  const demo = settings.options.demo;
  const base: DemoOptions = demo === false || demo === undefined ? {} : demo;
  settings.options.demo = { ...base, webhook: change(base.webhook) };
}

/**
 * `serve` flags for webhooks (each with an environment twin). Applied in
 * order, so `--webhook-url` comes before `--webhook-secret`.
 */
export const WEBHOOK_SERVE_FLAGS: ServeFlag[] = [
  {
    name: "webhook-url",
    env: "AIRTIME_SIM_WEBHOOK_URL",
    value: "URL",
    help: "send the demo customer's webhooks here (e.g. an `airtime-harness listen`)",
    apply(value, settings) {
      if (!z.url({ protocol: /^https?$/ }).safeParse(value).success) return "--webhook-url must be an http(s) URL";
      setDemoWebhook(settings, (webhook) => ({ ...webhook, url: value }));
      return undefined;
    },
  },
  {
    name: "webhook-secret",
    env: "AIRTIME_SIM_WEBHOOK_SECRET",
    value: "whsec_…",
    help: "the demo webhook's signing secret(s), comma-separated for rotation (default: generated)",
    apply(value, settings) {
      const secrets = value.split(",").map((secret) => secret.trim());
      if (!secrets.every(isWebhookSecret)) return "--webhook-secret must be whsec_ + base64 of 24–64 bytes";
      const demo = settings.options.demo;
      if (demo === false || demo?.webhook?.url === undefined) return "--webhook-secret needs --webhook-url";
      setDemoWebhook(settings, (webhook) => ({ url: webhook?.url ?? "", secrets }));
      return undefined;
    },
  },
  {
    name: "webhook-schedule",
    env: "AIRTIME_SIM_WEBHOOK_SCHEDULE",
    value: "LIST",
    help: "delay before each attempt, e.g. 0,100ms,1s (default 0,5s,5m,30m,2h,5h,10h,14h,20h,24h)",
    apply(value, settings) {
      try {
        webhookOptionsOf(settings).schedule = resolveSchedule(value);
      } catch (error) {
        return `--webhook-schedule: ${(error as Error).message}`;
      }
      return undefined;
    },
  },
  {
    name: "webhook-timeout",
    env: "AIRTIME_SIM_WEBHOOK_TIMEOUT",
    value: "DURATION",
    help: "per-attempt timeout, e.g. 500ms (default 15s)",
    apply(value, settings) {
      try {
        webhookOptionsOf(settings).timeout = resolveTimeout(value);
      } catch (error) {
        return `--webhook-timeout: ${(error as Error).message}`;
      }
      return undefined;
    },
  },
];
