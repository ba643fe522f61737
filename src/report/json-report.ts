/**
 * The one JSON envelope every report file is written in (`contract --json`,
 * `compare --json`, `handler-check --json`): which tool and version wrote
 * it, which command, the verdict, when the run started and finished, then
 * the command's own body. The envelope is checked against its schema before
 * anything is written, and a command that has a schema for its body (compare)
 * has the whole document checked, so a file that exists is a file its
 * schema describes.
 */
import { z } from "zod";
import { packageVersion } from "../package-root.ts";

const VERDICTS = ["passed", "failed", "no_verdict"] as const;
export type ReportVerdict = (typeof VERDICTS)[number];

export const ReportEnvelopeSchema = z.object({
  tool: z.literal("airtime-harness"),
  toolVersion: z.string().meta({ description: "The airtime-harness version that wrote the report." }),
  command: z.enum(["contract", "compare", "handler-check"]),
  version: z.int().min(1).meta({ description: "The report format's version: it changes when a field's meaning does." }),
  verdict: z.enum(VERDICTS).meta({ description: "`no_verdict`: the run could not judge (a setup error)." }),
  startedAt: z.iso.datetime().meta({ description: "When the run started (ISO 8601, UTC)." }),
  finishedAt: z.iso.datetime().meta({ description: "When the run finished (ISO 8601, UTC)." }),
});

export type ReportEnvelope = z.infer<typeof ReportEnvelopeSchema>;
type ReportCommand = ReportEnvelope["command"];

/** When a run started and finished, as the envelope states them. */
export interface RunTimes {
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

/**
 * The times of a run that finished now, for a caller that formats a report
 * right after running it and did not note its start.
 */
export function runTimesEndingNow(durationMs: number, now: Date = new Date()): RunTimes {
  return { startedAt: new Date(now.getTime() - durationMs), finishedAt: now };
}

/** Notes a run's start; `finish()` closes it. The clock is injected so a test can fix the times. */
export function startRun(now: () => Date = () => new Date()): { finish(): RunTimes } {
  const startedAt = now();
  return { finish: () => ({ startedAt, finishedAt: now() }) };
}

export interface EnvelopeFields {
  readonly command: ReportCommand;
  readonly version: number;
  readonly verdict: ReportVerdict;
  readonly times: RunTimes;
}

export function reportEnvelope(fields: EnvelopeFields): ReportEnvelope {
  return ReportEnvelopeSchema.parse({
    tool: "airtime-harness",
    toolVersion: packageVersion(),
    command: fields.command,
    version: fields.version,
    verdict: fields.verdict,
    startedAt: fields.times.startedAt.toISOString(),
    finishedAt: fields.times.finishedAt.toISOString(),
  });
}

/** A command's body schema under the envelope: the whole document's schema. */
export function enveloped<Shape extends z.ZodRawShape>(body: z.ZodObject<Shape>) {
  return ReportEnvelopeSchema.extend(body.shape);
}

/**
 * The document a report file holds: the envelope's fields first, then the
 * body's (a body never restates an envelope field); with the command's
 * schema, the whole document is checked against it.
 */
export function jsonReportDocument<Document>(
  envelope: ReportEnvelope,
  body: object,
  schema?: z.ZodType<Document>,
): Document {
  const clash = Object.keys(body).find((key) => key in envelope);
  if (clash !== undefined) throw new Error(`the report body restates the envelope's "${clash}"`);
  const document = { ...envelope, ...body };
  return schema === undefined ? (document as Document) : schema.parse(document);
}

/**
 * @example
 * renderJsonReport(reportEnvelope({ command: "contract", version: 1, verdict: "passed", times }), report);
 */
export function renderJsonReport(envelope: ReportEnvelope, body: object, schema?: z.ZodType): string {
  return `${JSON.stringify(jsonReportDocument(envelope, body, schema), null, 2)}\n`;
}
