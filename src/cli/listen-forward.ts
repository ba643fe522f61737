/**
 * `airtime-harness listen --forward-to URL`: every attempt is printed with
 * the handler's answer and latency, and the handler's status goes back to
 * the simulator, so its retries follow the handler.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { type ForwardedAttempt, createWebhookForwarder } from "../webhooks/forwarder.ts";
import { cannotListen } from "./listen-failure.ts";
import { untilStopSignal } from "./stop-signal.ts";

/** One line per attempt: time, webhook-id, reference, status, message, then what the handler did. */
function formatForwarded(attempt: ForwardedAttempt, target: string): string {
  const time = new Date(attempt.receivedAt).toISOString();
  const webhook = attempt.webhook;
  const what =
    webhook === undefined ? "(not an airtime webhook)" : `${webhook.reference}  ${webhook.status}  ${webhook.message}`;
  const signature =
    attempt.verification.kind === "verified" ? "" : `  (signature rejected: ${attempt.verification.reason})`;
  const { handler } = attempt;
  const outcome =
    handler.kind === "response"
      ? `handler ${handler.status} in ${Math.round(handler.latencyMs)} ms`
      : handler.error === "timeout"
        ? `handler did not answer in ${Math.round(handler.latencyMs)} ms; answered ${attempt.answered}`
        : `handler unreachable at ${target} (${handler.error}); answered ${attempt.answered}`;
  return `${time}  ${attempt.webhookId ?? "(no webhook-id)"}  ${what}${signature}  → ${outcome}`;
}

function toJson(attempt: ForwardedAttempt): string {
  return JSON.stringify({
    receivedAt: new Date(attempt.receivedAt).toISOString(),
    webhookId: attempt.webhookId ?? null,
    verified: attempt.verification.kind === "verified",
    ...(attempt.verification.kind === "rejected" ? { reason: attempt.verification.reason } : {}),
    webhook: attempt.webhook ?? null,
    handler: attempt.handler,
    answered: attempt.answered,
  });
}

/** What forwarding needs of `listen`'s settings. */
export interface ForwardConfig {
  readonly port: number;
  readonly host: string;
  readonly secrets: readonly string[];
  readonly json: boolean;
  /** The provider profile the sender speaks (`--provider`). */
  readonly provider?: CompiledProfile | undefined;
}

export async function forwardWebhooks(config: ForwardConfig, target: string): Promise<number> {
  const forwarder = createWebhookForwarder({
    target,
    secrets: config.secrets,
    port: config.port,
    host: config.host,
    provider: config.provider,
    onAttempt: (attempt) => console.log(config.json ? toJson(attempt) : formatForwarded(attempt, target)),
  });
  let url: string;
  try {
    url = await forwarder.listen();
  } catch (error) {
    console.error(`airtime-harness listen: ${cannotListen(config.host, config.port, error)}`);
    return 2;
  }
  console.log(`listening on ${url}, forwarding every attempt to ${target}; Ctrl-C to stop`);
  const signal = await untilStopSignal();
  await forwarder.close();
  const attempts = forwarder.attempts();
  const failed = attempts.filter((attempt) => attempt.answered < 200 || attempt.answered >= 300).length;
  console.error(`${signal}: stopped after ${attempts.length} forwarded, ${failed} not answered 2xx`);
  return 0;
}
