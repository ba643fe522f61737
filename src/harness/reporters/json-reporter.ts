/** The report as JSON, for tools: the ContractReport itself, in the reports' one envelope. */
import { reportEnvelope, type RunTimes, renderJsonReport, runTimesEndingNow } from "../../report/json-report.ts";
import type { ContractReport } from "../report.ts";

const JSON_REPORT_VERSION = 1;

/**
 * @example
 * // what `airtime-harness contract --json report.json` writes
 * await writeFile("report.json", formatJsonReport(report, run.finish()));
 */
export function formatJsonReport(
  report: ContractReport,
  times: RunTimes = runTimesEndingNow(report.durationMs),
): string {
  const verdict = report.ok ? "passed" : "failed";
  const envelope = reportEnvelope({ command: "contract", version: JSON_REPORT_VERSION, verdict, times });
  return renderJsonReport(envelope, report);
}
