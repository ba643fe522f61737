/**
 * The routes of the scenario admin API (`/_sim/scenarios…`), declared once:
 * merged into the admin document, and the activation body the admin routes
 * validate.
 */
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { ProblemSchema } from "../contract/public-schemas.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { AdminExtensionSpec } from "../domain/plugin-port.ts";
import {
  ScenarioActivationRequestSchema,
  ScenarioActivationResponseSchema,
  ScenarioListingSchema,
  ScenarioUploadResponseSchema,
} from "./admin-schemas.ts";

const json = (description: string, schema: z.ZodType): ZodOpenApiResponseObject => ({
  description,
  content: { "application/json": { schema } },
});

const problem = (description: string): ZodOpenApiResponseObject => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

const NAME_PATH = z.object({
  name: z.string().meta({ param: { description: "A loaded scenario's name, e.g. `flaky-gateway`." } }),
});

function activationRoute(verb: "activate" | "deactivate") {
  const scope =
    verb === "activate"
      ? "Activates the scenario for one customer (`customer`) or for everyone. Activating starts it afresh (counters, generator)."
      : "Deactivates the scenario for one customer (`customer`) or for everyone.";
  return {
    method: "post",
    path: `/_sim/scenarios/{name}/${verb}`,
    operation: {
      tags: ["scenarios"],
      summary: `${verb === "activate" ? "Activate" : "Deactivate"} a scenario`,
      description: `${scope} \`changed: false\` when nothing changed.`,
      operationId: `${verb}Scenario`,
      requestParams: { path: NAME_PATH },
      requestBody: { required: false, content: { "application/json": { schema: ScenarioActivationRequestSchema } } },
      responses: {
        "200": json("The active scenarios after the change.", ScenarioActivationResponseSchema),
        "400": problem("`validation_failed`: the body is not `{customer?}`."),
        "404": problem("`not_found`: no scenario of this name is loaded, or no such customer."),
      },
    },
  } satisfies RouteDeclaration;
}

/** `POST /_sim/scenarios/{name}/activate`; deactivation takes the same body. */
export const ACTIVATE_SCENARIO_ROUTE = activationRoute("activate");

export const SCENARIO_ADMIN_SPEC: AdminExtensionSpec = [
  {
    method: "get",
    path: "/_sim/scenarios",
    operation: {
      tags: ["scenarios"],
      summary: "List loaded and active scenarios",
      operationId: "listScenarios",
      responses: {
        "200": json("Loaded scenarios, active ones by scope, magic accounts on or off.", ScenarioListingSchema),
      },
    },
  },
  {
    method: "post",
    path: "/_sim/scenarios",
    operation: {
      tags: ["scenarios"],
      summary: "Upload a scenario",
      description:
        "Validates and loads one scenario (replacing a loaded one of the same name, whose state starts afresh). " +
        "Send the file as YAML, or the same object as JSON. Uploading does not activate it.",
      operationId: "uploadScenario",
      requestBody: {
        required: true,
        content: {
          "application/yaml": { schema: { type: "string", description: "A scenario file's text." } },
          "application/json": {
            // The scenario schema holds parsers (timings as text), so it is published on its own.
            schema: { type: "object", description: "A scenario as in spec/scenario.schema.json." },
          },
        },
      },
      responses: {
        "200": json("Replaced a loaded scenario of the same name.", ScenarioUploadResponseSchema),
        "201": json("Loaded.", ScenarioUploadResponseSchema),
        "400": problem("`validation_failed`: every problem, with a JSON Pointer into the scenario."),
      },
    },
  },
  {
    method: "get",
    path: "/_sim/scenarios/{name}",
    operation: {
      tags: ["scenarios"],
      summary: "Read a loaded scenario",
      operationId: "getScenario",
      requestParams: { path: NAME_PATH },
      responses: {
        "200": {
          description: "The scenario's summary and its parsed definition.",
          content: { "application/json": { schema: { type: "object" } } },
        },
        "404": problem("`not_found`: no scenario of this name is loaded."),
      },
    },
  },
  {
    method: "delete",
    path: "/_sim/scenarios/{name}",
    operation: {
      tags: ["scenarios"],
      summary: "Remove a loaded scenario",
      description:
        "Deactivates the scenario everywhere and forgets it. Orders it already shaped keep their effects. " +
        "`trigger` removes the scenario it loaded this way when it is done.",
      operationId: "removeScenario",
      requestParams: { path: NAME_PATH },
      responses: {
        "204": { description: "Removed." },
        "404": problem("`not_found`: no scenario of this name is loaded."),
      },
    },
  },
  ACTIVATE_SCENARIO_ROUTE,
  activationRoute("deactivate"),
];
