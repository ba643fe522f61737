/**
 * `airtime-harness trigger STATUS`: makes a signed webhook of any final
 * status happen, against a running simulator or, with `--forward-to`, an
 * in-process one on a virtual clock that delivers straight to the handler
 * under test. Exit 0 when the handler answered 2xx to every webhook, 1 when
 * it did not, 2 for bad input or a simulator that cannot be used.
 *
 * It prints the order, each webhook that was sent and every attempt with
 * the handler's answer, or, with `--json`, one JSON document.
 */
import { compileProfile } from "../contract/provider-profile/compile.ts";
import { createAdminClient } from "../harness/admin-client.ts";
import { createSimulator } from "../simulator/create-simulator.ts";
import { runTrigger, TriggerProblem, type TriggerReport } from "./trigger-run.ts";
import { parseTriggerArgs, type TriggerConfig, USAGE, UsageError } from "./trigger-settings.ts";
import type { AdminDeliveryAttempt, AdminDeliveryDetail } from "../webhooks/admin-schemas.ts";

async function run(config: TriggerConfig) {
  const request = {
    path: config.path,
    order: config.order,
    faults: config.faults,
    waitMs: config.waitMs,
  };
  const { target } = config;
  if (target.kind === "remote") {
    const admin = createAdminClient(target.url, target.adminToken);
    const provider = compileProfile(config.provider);
    return runTrigger({ ...request, provider, url: target.url, admin, customerId: target.customerId });
  }
  const sim = await createSimulator({
    clock: "virtual",
    provider: config.provider,
    demo: { webhook: { url: target.forwardTo, secrets: [target.secret] } },
  });
  try {
    const url = await sim.listen();
    const admin = createAdminClient(url, sim.adminToken);
    // The simulator compiled the profile at start: read its answers through the same one.
    return await runTrigger({
      ...request,
      provider: sim.provider,
      url,
      admin,
      customerId: sim.demo?.customerId ?? "demo",
    });
  } finally {
    await sim.close();
  }
}

/**
 * @example
 * // airtime-harness trigger failed --forward-to localhost:3000/webhooks --secret whsec_…
 * const code = await trigger(["failed", "--forward-to", "localhost:3000/webhooks", "--secret", secret]);
 */
export async function trigger(args: string[]): Promise<number> {
  let config: TriggerConfig | "help";
  try {
    config = await parseTriggerArgs(args, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(
      `airtime-harness trigger: ${error.message}\n\nRun \`airtime-harness trigger --help\` for the options.`,
    );
    return 2;
  }
  if (config === "help") {
    console.log(USAGE);
    return 0;
  }
  try {
    const report = await run(config);
    console.log(config.json ? triggerReportJson(report) : formatTriggerReport(report));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof TriggerProblem)) throw error;
    console.error(`airtime-harness trigger: ${error.message}`);
    return error.exitCode;
  }
}

/** The order as the report reads it: whatever the admin API answered, printed as given. */
interface OrderView {
  readonly id?: string;
  readonly reference?: string;
  readonly status?: number;
  readonly message?: string;
  readonly amount?: number;
  readonly currency?: string;
  readonly account?: string;
  readonly service?: string;
}

function answerOf(attempt: AdminDeliveryAttempt): string {
  return attempt.responseStatus === null ? `no answer (${attempt.error ?? "error"})` : `HTTP ${attempt.responseStatus}`;
}

/**
 * One line per attempt, except that a run of attempts that got the same
 * answer is one line with its count: ten refused connections say one thing.
 */
function formatAttempts(attempts: readonly AdminDeliveryAttempt[]): string[] {
  const lines: string[] = [];
  for (let start = 0; start < attempts.length;) {
    const first = attempts[start] as AdminDeliveryAttempt;
    const same = (a: AdminDeliveryAttempt | undefined) =>
      a !== undefined && answerOf(a) === answerOf(first) && a.outcome === first.outcome;
    let end = start + 1;
    while (same(attempts[end])) end++;
    const last = attempts[end - 1] as AdminDeliveryAttempt;
    lines.push(
      end - start === 1
        ? `    attempt ${first.number}: ${answerOf(first)} in ${Math.round(first.latencyMs)} ms (${first.outcome})`
        : `    attempts ${first.number}–${last.number}: ${answerOf(first)}, ${end - start} times (${first.outcome})`,
    );
    start = end;
  }
  return lines;
}

/** What to do about the failures the attempts show, if the report can tell. */
function hints(report: TriggerReport): string[] {
  const errors = new Set(report.deliveries.flatMap((d) => d.attempts.map((a) => a.error)));
  const lines: string[] = [];
  if (errors.has("connection_refused")) {
    lines.push(
      `hint: nothing is listening at ${report.webhookUrl}: start your handler ` +
        "(or aim --forward-to where it listens), then run trigger again",
    );
  }
  if (errors.has("timeout")) {
    lines.push(`hint: the handler at ${report.webhookUrl} took longer than the webhook timeout to answer`);
  }
  const refused = refusedStatuses(report);
  if (refused.length > 0) {
    lines.push(
      `hint: the handler refused correctly signed webhooks (HTTP ${refused.join(", ")}): the secret it verifies ` +
        "with probably differs from the one they were signed with (trigger's --secret, or serve's --webhook-secret)",
    );
  }
  return lines;
}

/** A 400, 401 or 403 to a webhook signed as it should be is most often a secret that differs. */
function refusedStatuses(report: TriggerReport): number[] {
  const statuses = report.deliveries
    .filter((delivery) => !delivery.badSignature)
    .flatMap((delivery) => delivery.attempts.map((attempt) => attempt.responseStatus));
  return [400, 401, 403].filter((status) => statuses.includes(status));
}

function formatDelivery(delivery: AdminDeliveryDetail): string[] {
  const kind = delivery.kind === "status" ? "webhook" : delivery.kind;
  const flags = delivery.badSignature ? " [signed with a wrong secret]" : "";
  const state =
    delivery.state === "pending" && delivery.nextAttemptAt !== null
      ? `pending, next attempt at ${delivery.nextAttemptAt}`
      : `${delivery.state}${delivery.reason === null ? "" : ` (${delivery.reason})`}`;
  return [
    `  ${kind} ${delivery.messageId}: ${delivery.status} ${delivery.payload.message}${flags}: ${state}`,
    // A duplicate carries the same body as its original: printed once.
    ...(delivery.kind === "duplicate" ? [] : [`    body: ${JSON.stringify(delivery.payload)}`]),
    ...(delivery.attempts.length === 0 ? ["    no attempt yet"] : formatAttempts(delivery.attempts)),
  ];
}

/** 273681993 → "76 h 1 min": how far a virtual clock moved, at a glance. */
function roughly(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function formatTriggerReport(report: TriggerReport): string {
  const order = report.order as OrderView;
  const lines = [
    `order ${order.id} (reference ${order.reference}): ${order.status} ${order.message}, ` +
      `${order.currency} ${order.amount} to ${order.account} (${order.service})`,
    `webhooks to ${report.webhookUrl}:`,
    ...report.deliveries.flatMap(formatDelivery),
  ];
  if (report.deliveries.length === 0) lines.push("  none was sent");
  if (report.clock === "virtual")
    lines.push(`(the virtual clock was advanced by ${roughly(report.advancedMs)} to run the attempts)`);
  lines.push(...hints(report));
  lines.push(
    report.ok
      ? "ok: the handler answered 2xx to every webhook"
      : "not ok: the handler did not answer 2xx to every webhook",
  );
  return lines.join("\n");
}

function triggerReportJson(report: TriggerReport): string {
  return JSON.stringify(report, null, 2);
}
