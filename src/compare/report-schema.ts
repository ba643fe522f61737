/**
 * The JSON report of `compare --json FILE`: the one schema its type, its
 * writer's validation and `spec/compare-report.schema.json` derive from.
 * Rule names and operations are plain strings, so a new rule (or a new
 * operation) needs no schema change; figures that are not known (a quantile
 * of no timings) are null.
 */
import { z } from "zod";
import { renderJsonSchemaFile } from "../contract/json-schema-file.ts";
import { enveloped } from "../report/json-report.ts";

export const COMPARE_REPORT_SCHEMA_FILE = "spec/compare-report.schema.json";

const Count = z.int().min(0);
const Figure = z.number().nullable();
const Share = z.number().min(0).max(1).nullable();

const RateEvidenceSchema = z
  .object({
    kind: z.literal("rate"),
    count: Count,
    n: Count,
    rate: z.number().min(0).max(1),
    interval: z.object({ low: z.number(), high: z.number() }).meta({ description: "Wilson interval at 99 %." }),
  })
  .meta({ description: "`count` of `n`, e.g. failed orders of all final orders." });

const TimingEvidenceSchema = z
  .object({ kind: z.literal("timing"), n: Count, p50: Figure, p95: Figure, max: Figure })
  .meta({ description: "A sample of durations in ms, e.g. pending → final; null when there is none." });

const AnswersEvidenceSchema = z
  .object({
    kind: z.literal("answers"),
    answers: z.record(z.string(), Count).meta({ description: "Answer class → how often it was seen." }),
    example: z.string().optional().meta({ description: "A request that drew an answer, as a curl line." }),
  })
  .meta({ description: "What one request condition was answered with, or which values were seen." });

const OtherEvidenceSchema = z
  .object({ kind: z.literal("figures"), figures: z.record(z.string(), z.unknown()) })
  .meta({ description: "Evidence of a kind this report version does not name, as its figures." });

const EvidenceSchema = z.discriminatedUnion("kind", [
  RateEvidenceSchema,
  TimingEvidenceSchema,
  AnswersEvidenceSchema,
  OtherEvidenceSchema,
]);

const ExchangeSchema = z.object({
  outcome: z.string(),
  curl: z.string().meta({ description: "The request; the token is left as `$TOKEN`." }),
});

const SequenceStepSchema = z.object({ kind: z.string(), simulator: ExchangeSchema, target: ExchangeSchema });

const RuleSchema = z.object({
  rule: z.string(),
  operation: z.string().meta({ description: "send, replay, lookup, balance, webhook … (open-ended)." }),
  severity: z.enum(["high", "medium", "low"]),
  agrees: z.boolean(),
  observations: Count.meta({ description: "Observations compared: the weight in the fidelity score." }),
  test: z.string(),
  pValue: z.number().min(0).max(1),
  simulator: EvidenceSchema,
  target: EvidenceSchema,
  sequence: z
    .array(SequenceStepSchema)
    .optional()
    .meta({ description: "For an answer divergence: its run's steps up to the first one answered differently." }),
});

const SideSchema = z.object({
  steps: Count,
  finals: z.record(z.string(), Count).meta({ description: "Final status name → orders that reached it." }),
  finalClasses: z.record(z.string(), Count),
  finalTimes: TimingEvidenceSchema,
  unsettled: Count,
  webhooks: z
    .object({
      requests: Count,
      invalidSignatures: Count,
      statusChanges: Count,
      duplicatedChanges: Count,
      repeatsAfter2xx: Count,
      eventNames: z.record(z.string(), Count).meta({ description: "Event name → delivery ids that carried it." }),
    })
    .optional()
    .meta({ description: "What the side's webhook receiver got; absent when webhooks were not observed." }),
});

/** compare's own body, under the reports' one envelope (src/report/json-report.ts). */
const CompareBodySchema = z.object({
  report: z.literal("airtime-harness compare"),
  seed: z.int(),
  runs: Count,
  provider: z.string(),
  target: z.object({ url: z.string().meta({ description: "Without credentials; tokens are never written." }) }),
  scores: z.object({
    overall: Share,
    operations: z.record(z.string(), Share).meta({ description: "Operation → share of agreeing observations." }),
  }),
  spending: z
    .object({ budget: z.number().min(0), maxSpend: z.number().min(0), runsPlanned: Count })
    .optional()
    .meta({ description: "With --budget: the limit (KES), the most the runs sent could ask for, the runs planned." }),
  divergences: Count,
  rules: z.array(RuleSchema),
  sides: z.object({ simulator: SideSchema, target: SideSchema }),
});

export const CompareJsonReportSchema = enveloped(CompareBodySchema)
  .extend({ command: z.literal("compare"), version: z.literal(1) })
  .meta({ id: "CompareReport", title: "airtime-harness compare report" });

export type CompareJsonReport = z.infer<typeof CompareJsonReportSchema>;
export type JsonEvidence = z.infer<typeof EvidenceSchema>;

export function renderCompareReportJsonSchema(): string {
  return renderJsonSchemaFile(CompareJsonReportSchema, COMPARE_REPORT_SCHEMA_FILE);
}
