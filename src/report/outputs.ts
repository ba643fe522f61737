/**
 * Writing the reports the flags name: `--json FILE`, `--html FILE`,
 * `--junit FILE`, where `-` names standard output. The console report goes
 * to standard output, or to standard error when a file report takes
 * standard output, so what a pipe reads is only the one format it asked for.
 */
import { writeFile } from "node:fs/promises";

export type ReportFormat = "json" | "html" | "junit";
/** Each format the flags name, with its file; `undefined` or absent: not written. */
export type ReportFiles = Readonly<Partial<Record<ReportFormat, string | undefined>>>;

const STANDARD_OUTPUT = "-";

/** Where text goes: console lines (as console.log and console.error print them) and raw standard output. */
interface Outlets {
  readonly log: (text: string) => void;
  readonly error: (text: string) => void;
  readonly stdout: (text: string) => void;
}

const PROCESS_OUTLETS: Outlets = {
  log: (text) => console.log(text),
  error: (text) => console.error(text),
  stdout: (text) => process.stdout.write(text),
};

/** A refusal for files no run can write (two formats on standard output), before the run starts. */
export function reportFilesError(files: ReportFiles): string | undefined {
  const onStdout = Object.entries(files).filter(([, file]) => file === STANDARD_OUTPUT);
  if (onStdout.length < 2) return undefined;
  return `only one report can go to standard output (-): ${onStdout.map(([format]) => `--${format}`).join(", ")}`;
}

/**
 * @example
 * await writeReports({ json: "-" }, { console: () => text, json: () => formatJsonReport(report) });
 */
export async function writeReports(
  files: ReportFiles,
  render: { readonly console: () => string } & Readonly<Partial<Record<ReportFormat, () => string>>>,
  outlets: Outlets = PROCESS_OUTLETS,
): Promise<void> {
  const stdoutTaken = Object.values(files).includes(STANDARD_OUTPUT);
  (stdoutTaken ? outlets.error : outlets.log)(render.console());
  for (const [format, file] of Object.entries(files) as [ReportFormat, string | undefined][]) {
    if (file === undefined) continue;
    const renderer = render[format];
    if (renderer === undefined) throw new Error(`this command writes no --${format} report`);
    if (file === STANDARD_OUTPUT) outlets.stdout(renderer());
    else await writeFile(file, renderer());
  }
}
