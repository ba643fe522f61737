/**
 * The OpenAPI side of the scenario admin API (`/_sim/scenarios…`), merged
 * into the admin document with the other admin extensions.
 */
import type { OperationObject, PathsObject, ResponseObject } from "openapi3-ts/oas31";
import { ProblemSchema } from "../contract/public-schemas.ts";
import type { AdminExtensionSpec } from "../http/admin-extension.ts";
import {
  ScenarioActivationRequestSchema,
  ScenarioActivationResponseSchema,
  ScenarioListingSchema,
  ScenarioUploadResponseSchema,
} from "./admin-schemas.ts";

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function json(description: string, schemaId: string): ResponseObject {
  return { description, content: { "application/json": { schema: ref(schemaId) } } };
}

function problem(description: string): ResponseObject {
  return { description, content: { "application/problem+json": { schema: ref("Problem") } } };
}

const nameParameter = {
  name: "name",
  in: "path" as const,
  required: true,
  schema: { type: "string" as const },
  description: "A loaded scenario's name, e.g. `flaky-gateway`.",
};

function activation(verb: "activate" | "deactivate"): OperationObject {
  const scope =
    verb === "activate"
      ? "Activates the scenario for one customer (`customer`) or for everyone. Activating starts it afresh (counters, generator)."
      : "Deactivates the scenario for one customer (`customer`) or for everyone.";
  return {
    tags: ["scenarios"],
    summary: `${verb === "activate" ? "Activate" : "Deactivate"} a scenario`,
    description: `${scope} \`changed: false\` when nothing changed.`,
    operationId: `${verb}Scenario`,
    parameters: [nameParameter],
    requestBody: {
      required: false,
      content: { "application/json": { schema: ref("ScenarioActivationRequest") } },
    },
    responses: {
      "200": json("The active scenarios after the change.", "ScenarioActivationResponse"),
      "400": problem("`validation_failed`: the body is not `{customer?}`."),
      "404": problem("`not_found`: no scenario of this name is loaded, or no such customer."),
    },
  };
}

const paths: PathsObject = {
  "/_sim/scenarios": {
    get: {
      tags: ["scenarios"],
      summary: "List loaded and active scenarios",
      operationId: "listScenarios",
      responses: {
        "200": json("Loaded scenarios, active ones by scope, magic accounts on or off.", "ScenarioListing"),
      },
    },
    post: {
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
        "200": json("Replaced a loaded scenario of the same name.", "ScenarioUploadResponse"),
        "201": json("Loaded.", "ScenarioUploadResponse"),
        "400": problem("`validation_failed`: every problem, with a JSON Pointer into the scenario."),
      },
    },
  },
  "/_sim/scenarios/{name}": {
    get: {
      tags: ["scenarios"],
      summary: "Read a loaded scenario",
      operationId: "getScenario",
      parameters: [nameParameter],
      responses: {
        "200": {
          description: "The scenario's summary and its parsed definition.",
          content: { "application/json": { schema: { type: "object" } } },
        },
        "404": problem("`not_found`: no scenario of this name is loaded."),
      },
    },
  },
  "/_sim/scenarios/{name}/activate": { post: activation("activate") },
  "/_sim/scenarios/{name}/deactivate": { post: activation("deactivate") },
};

export const SCENARIO_ADMIN_SPEC: AdminExtensionSpec = {
  paths,
  schemas: [
    ScenarioListingSchema,
    ScenarioUploadResponseSchema,
    ScenarioActivationRequestSchema,
    ScenarioActivationResponseSchema,
    ProblemSchema,
  ],
};
