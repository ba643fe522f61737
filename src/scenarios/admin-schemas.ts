/**
 * The scenario admin API's bodies (`/_sim/scenarios…`) as zod schemas: the
 * request validation, the types and the admin OpenAPI document.
 */
import { z } from "zod";

const ScenarioNameSchema = z.string().meta({ description: "A loaded scenario's name.", examples: ["flaky-gateway"] });

const ScenarioSummarySchema = z
  .object({
    name: ScenarioNameSchema,
    description: z.string(),
    rules: z.array(z.string()).meta({ description: "Rule names, in evaluation order." }),
    source: z.string().meta({ description: "Where it was loaded from: a file, `admin upload`, `options`." }),
    seed: z.number().int().optional(),
  })
  .meta({ id: "ScenarioSummary" });

const ScenarioActiveSchema = z
  .object({
    global: z.array(ScenarioNameSchema).meta({ description: "Active for every customer, in evaluation order." }),
    customers: z
      .record(z.string(), z.array(ScenarioNameSchema))
      .meta({ description: "Active for one customer only, in evaluation order." }),
  })
  .meta({ id: "ScenarioActive" });

export const ScenarioListingSchema = z
  .object({
    loaded: z.array(ScenarioSummarySchema),
    active: ScenarioActiveSchema,
    magicAccounts: z.boolean().meta({ description: "Whether the magic test accounts are on." }),
  })
  .meta({ id: "ScenarioListing" });

export const ScenarioUploadResponseSchema = z
  .object({
    scenario: ScenarioSummarySchema,
    replaced: z.boolean().meta({ description: "True when a scenario of the same name was loaded before." }),
  })
  .meta({ id: "ScenarioUploadResponse" });

export const ScenarioActivationRequestSchema = z
  .strictObject({
    customer: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: "Only this customer's traffic; absent: every customer." }),
  })
  .meta({ id: "ScenarioActivationRequest" });
export type ScenarioActivationRequest = z.infer<typeof ScenarioActivationRequestSchema>;

export const ScenarioActivationResponseSchema = z
  .object({
    scenario: ScenarioNameSchema,
    customer: z.string().optional(),
    changed: z.boolean().meta({ description: "False when it already was (or was not) active in that scope." }),
    active: ScenarioActiveSchema,
  })
  .meta({ id: "ScenarioActivationResponse" });
