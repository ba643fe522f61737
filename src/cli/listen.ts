/**
 * `airtime-harness listen`: a webhook receiver for the terminal. Verifies
 * every request with the given secret(s), prints each verified delivery on
 * one line as it arrives (stdout) and each rejected request (stderr), and
 * answers with a chosen status so a sender's retries can be watched.
 *
 * With `--forward-to URL` it forwards instead: every attempt is printed with
 * the handler's answer and latency, and the handler's status goes back to
 * the simulator, so its retries follow the handler.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { createWebhookInbox, type InboxDelivery, type InboxRejection } from "../webhooks/inbox.ts";
import { cannotListen, untilStopSignal } from "./long-running.ts";
import { parseListenArgs } from "./listen-settings.ts";
import { type ForwardedAttempt, createWebhookForwarder } from "../webhooks/forwarder.ts";

/** One line per delivery: time, webhook-id, reference, status, message. */
export function formatDelivery(delivery: InboxDelivery, provider?: CompiledProfile): string {
  const time = new Date(delivery.receivedAt).toISOString();
  const { webhook, order } = delivery;
  if (provider !== undefined && order?.reference !== undefined) {
    const name = order.status === undefined ? "unknown status" : provider.statuses.nameOf(order.status);
    return `${time}  ${delivery.webhookId}  ${order.reference}  ${String(order.statusValue)}  ${name}`;
  }
  if (webhook === undefined)
    return `${time}  ${delivery.webhookId}  (not an airtime webhook) ${delivery.body.slice(0, 200)}`;
  return `${time}  ${delivery.webhookId}  ${webhook.reference}  ${webhook.status}  ${webhook.message}${webhook.final ? "" : " (not final)"}`;
}

export function formatRejection(rejection: InboxRejection): string {
  const time = new Date(rejection.receivedAt).toISOString();
  return `${time}  rejected ${rejection.webhookId ?? "(no webhook-id)"}: ${rejection.reason}`;
}

/**
 * @example
 * // airtime-harness listen --port 4020 --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
 * const code = await listen(["--port", "0", "--secret", secret]); // resolves on SIGINT/SIGTERM
 */
export async function listen(args: string[]): Promise<number> {
  const parsed = parseListenArgs(args, process.env);
  if (parsed.kind === "exit") return parsed.code;
  const { config } = parsed;
  if (config.forwardTo !== undefined) return forwardWebhooks(config, config.forwardTo);
  let seen = 0;
  const inbox = createWebhookInbox({
    secrets: config.secrets,
    port: config.port,
    host: config.host,
    respond: config.status,
    provider: config.provider,
    onDelivery: (delivery) => {
      seen++;
      console.log(config.json ? JSON.stringify(delivery) : formatDelivery(delivery, config.provider));
    },
    onRejected: (rejection) => console.error(formatRejection(rejection)),
  });
  const url = await takePort(config, () => inbox.listen());
  if (url === undefined) return 2;
  const secretCount = `${config.secrets.length} secret${config.secrets.length === 1 ? "" : "s"}`;
  console.log(`listening on ${url} (verifying with ${secretCount}, answering ${config.status}); Ctrl-C to stop`);
  const signal = await untilStopSignal();
  await inbox.close();
  const deliveries = seen === 1 ? "1 delivery" : `${seen} deliveries`;
  const duplicates = inbox.duplicates() === 1 ? "1 duplicate" : `${inbox.duplicates()} duplicates`;
  console.error(`${signal}: stopped after ${deliveries}, ${duplicates}, ${inbox.rejected().length} rejected`);
  return 0;
}

/** Listens in either mode: the URL, or undefined once it has said why the port could not be taken. */
async function takePort(
  where: { readonly host: string; readonly port: number },
  listen: () => Promise<string>,
): Promise<string | undefined> {
  try {
    return await listen();
  } catch (error) {
    console.error(`airtime-harness listen: ${cannotListen(where.host, where.port, error)}`);
    return undefined;
  }
}

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

async function forwardWebhooks(config: ForwardConfig, target: string): Promise<number> {
  const forwarder = createWebhookForwarder({
    target,
    secrets: config.secrets,
    port: config.port,
    host: config.host,
    provider: config.provider,
    onAttempt: (attempt) => console.log(config.json ? toJson(attempt) : formatForwarded(attempt, target)),
  });
  const url = await takePort(config, () => forwarder.listen());
  if (url === undefined) return 2;
  console.log(`listening on ${url}, forwarding every attempt to ${target}; Ctrl-C to stop`);
  const signal = await untilStopSignal();
  await forwarder.close();
  const attempts = forwarder.attempts();
  const failed = attempts.filter((attempt) => attempt.answered < 200 || attempt.answered >= 300).length;
  console.error(`${signal}: stopped after ${attempts.length} forwarded, ${failed} not answered 2xx`);
  return 0;
}
