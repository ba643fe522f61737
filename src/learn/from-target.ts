/**
 * `profile init --from-target`, as one call: probe the target (printing
 * every request), receive its webhooks when a listen address and secret are
 * given, infer the profile, and return it as commented YAML. Nothing is
 * written here: the caller writes the one file.
 */
import { startDeliveryRecorder } from "./delivery-recorder.ts";
import { inferFromObservations, type InferredProfile } from "./infer-from-target.ts";
import { createProbeClient } from "./probe-client.ts";
import { runProbe } from "./probe-run.ts";
import { probeSettings } from "./probe-settings.ts";

export interface FromTargetOptions {
  readonly target: string;
  readonly token: string;
  readonly otherToken?: string;
  readonly account: string;
  readonly listen?: { readonly host: string; readonly port: number };
  readonly webhookSecret?: string;
  /** KES; default three orders of the smallest amount the target takes. */
  readonly budget?: number;
  readonly timeoutMs: number;
}

export type FromTargetResult =
  | { readonly ok: true; readonly inferred: InferredProfile; readonly spent: number; readonly budget: number }
  | { readonly ok: false; readonly reason: string; readonly spent: number };

/**
 * @example
 * const result = await inferFromTarget({ target, token, account: "0712000101", timeoutMs: 10_000 }, console.log);
 */
export async function inferFromTarget(
  options: FromTargetOptions,
  print: (line: string) => void,
): Promise<FromTargetResult> {
  const client = createProbeClient(options.target, print);
  const recorder =
    options.listen === undefined || options.webhookSecret === undefined
      ? undefined
      : await startDeliveryRecorder(options.listen);
  if (recorder !== undefined) print(`receiving webhooks at ${recorder.url}`);
  try {
    const result = await runProbe(client, probeSettings(options), recorder);
    if (!result.ok) return { ok: false, reason: result.reason, spent: client.spent() };
    const inferred = inferFromObservations(result.observations, result.deliveries, options.webhookSecret);
    return { ok: true, inferred, spent: client.spent(), budget: client.budget() ?? 0 };
  } finally {
    await recorder?.close();
  }
}
