/** The report as JSON, for tools: the ContractReport itself, versioned. */
import type { ContractReport } from "../report.ts";

const JSON_REPORT_VERSION = 1;

export function formatJsonReport(report: ContractReport): string {
  return `${JSON.stringify({ version: JSON_REPORT_VERSION, ...report }, null, 2)}\n`;
}
