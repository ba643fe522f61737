/**
 * `airtime-harness trigger STATUS`: makes a signed webhook of any final
 * status happen, against a running simulator or, with `--forward-to`, an
 * in-process one on a virtual clock that delivers straight to the handler
 * under test. Exit 0 when the handler answered 2xx to every webhook, 1 when
 * it did not, 2 for bad input or a simulator that cannot be used.
 */
import { compileProfile } from "../contract/provider-profile/compile.ts";
import { createAdminClient } from "../harness/admin-client.ts";
import { createSimulator } from "../simulator/create-simulator.ts";
import { formatTriggerReport, triggerReportJson } from "./trigger-report.ts";
import { runTrigger, TriggerProblem } from "./trigger-run.ts";
import { parseTriggerArgs, type TriggerConfig, USAGE, UsageError } from "./trigger-settings.ts";

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
