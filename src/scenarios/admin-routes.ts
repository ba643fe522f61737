/**
 * The scenario admin API, mounted under `/_sim` behind the admin token:
 *
 *   GET  /_sim/scenarios                    loaded and active scenarios
 *   POST /_sim/scenarios                    upload one (YAML or JSON), validated; replaces by name
 *   GET  /_sim/scenarios/:name              one loaded scenario, as parsed
 *   DELETE /_sim/scenarios/:name            deactivate it everywhere and forget it
 *   POST /_sim/scenarios/:name/activate     {customer?}: for one customer, or for everyone
 *   POST /_sim/scenarios/:name/deactivate   {customer?}
 */
import express, { type Request, type RequestHandler, type Router } from "express";
import { didYouMean } from "../contract/did-you-mean.ts";
import { jsonBodySchema } from "../contract/routes/route.ts";
import type { Store } from "../domain/ports.ts";
import type { AdminExtension, AdminRouteKit } from "../domain/plugin-port.ts";
import type { ScenarioActivationRequest } from "./admin-schemas.ts";
import { ACTIVATE_SCENARIO_ROUTE } from "./admin-spec.ts";
import type { ManagedScenarioEngine, ScenarioSummary } from "./engine.ts";
import {
  formatScenarioIssue,
  issuePointer,
  type ParseOptions,
  parseScenarioText,
  type ScenarioParseResult,
  validateScenario,
} from "./load.ts";

/** Content types of a YAML upload (JSON bodies go through the usual JSON parser). */
const YAML_MEDIA_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"] as const;

const UPLOAD_SOURCE = "admin upload";
const UPLOAD_LIMIT_BYTES = 64 * 1024;

function parseUpload(body: unknown, options: ParseOptions): ScenarioParseResult {
  if (typeof body === "string") return parseScenarioText(body, UPLOAD_SOURCE, options);
  // A JSON client may also wrap the YAML text: {"yaml": "name: …"}.
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const yaml = (body as Record<string, unknown>).yaml;
    if (keys.length === 1 && typeof yaml === "string") return parseScenarioText(yaml, UPLOAD_SOURCE, options);
    return validateScenario(body, UPLOAD_SOURCE, options);
  }
  return {
    ok: false,
    issues: [
      {
        file: UPLOAD_SOURCE,
        path: "(root)",
        message: "send a scenario as YAML (Content-Type: application/yaml) or as a JSON object",
      },
    ],
  };
}

function summary(engine: ManagedScenarioEngine, name: string): ScenarioSummary {
  const found = engine.list().loaded.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`scenario ${name} vanished after loading`);
  return found;
}

export interface ScenarioAdminDeps {
  readonly engine: ManagedScenarioEngine;
  /** To refuse activating for a customer that does not exist. */
  readonly store: Pick<Store, "getCustomer">;
  readonly parseOptions?: ParseOptions;
}

/** `POST /scenarios`: adds (or replaces) one scenario from a YAML upload. */
function uploadHandler(deps: ScenarioAdminDeps, problem: AdminRouteKit["problem"]): RequestHandler {
  return (req, res) => {
    const result = parseUpload(req.body, deps.parseOptions ?? {});
    if (!result.ok) {
      throw problem(
        "validation_failed",
        `The scenario is not valid: ${result.issues.map((issue) => formatScenarioIssue(issue).slice(UPLOAD_SOURCE.length + 2)).join("; ")}`,
        {
          errors: result.issues.slice(0, 20).map((issue) => ({ pointer: issuePointer(issue), detail: issue.message })),
        },
      );
    }
    const added = deps.engine.add([result.scenario]);
    if (added.kind === "reserved_name") {
      throw problem("validation_failed", `The name ${JSON.stringify(added.name)} is reserved.`, {
        errors: [{ pointer: "#/name", detail: "reserved for the built-in magic test accounts" }],
      });
    }
    const replaced = added.replaced.length > 0;
    res.status(replaced ? 200 : 201).json({
      scenario: summary(deps.engine, result.scenario.definition.name),
      replaced,
    });
  };
}

export function createScenarioAdmin(deps: ScenarioAdminDeps): AdminExtension {
  const { engine, store } = deps;

  return {
    name: "scenarios",
    register(router: Router, { problem, validate, methodNotAllowed }: AdminRouteKit) {
      const activationBody = (req: Request): ScenarioActivationRequest =>
        validate(jsonBodySchema(ACTIVATE_SCENARIO_ROUTE), req.body ?? {}, "activation");
      const requireLoaded = (name: string): void => {
        if (engine.get(name) === undefined) {
          const known = engine.list().loaded.map((scenario) => scenario.name);
          throw problem("not_found", `No scenario named ${JSON.stringify(name)} is loaded${didYouMean(name, known)}.`);
        }
      };
      const requireCustomer = async (customer: string | undefined): Promise<void> => {
        if (customer !== undefined && (await store.getCustomer(customer)) === undefined) {
          throw problem("not_found", `No customer with the id ${JSON.stringify(customer)}.`);
        }
      };

      router.get("/scenarios", (_req, res) => {
        res.json(engine.list());
      });
      router.post(
        "/scenarios",
        express.text({ type: [...YAML_MEDIA_TYPES], limit: UPLOAD_LIMIT_BYTES }),
        uploadHandler(deps, problem),
      );
      router.all("/scenarios", methodNotAllowed(["GET", "POST"]));

      router.get("/scenarios/:name", (req, res) => {
        const name = req.params.name as string;
        requireLoaded(name);
        res.json({ ...summary(engine, name), definition: engine.get(name)?.definition });
      });
      router.delete("/scenarios/:name", (req, res) => {
        const name = req.params.name as string;
        requireLoaded(name);
        engine.remove(name);
        res.status(204).end();
      });
      router.all("/scenarios/:name", methodNotAllowed(["GET", "DELETE"]));

      router.post("/scenarios/:name/activate", async (req, res) => {
        const name = req.params.name as string;
        const { customer } = activationBody(req);
        requireLoaded(name);
        await requireCustomer(customer);
        const outcome = engine.activate(name, customer === undefined ? {} : { customer });
        if (outcome.kind === "unknown_scenario") requireLoaded(name);
        res.json({
          scenario: name,
          customer,
          changed: outcome.kind === "activated",
          active: engine.list().active,
        });
      });
      router.all("/scenarios/:name/activate", methodNotAllowed(["POST"]));

      router.post("/scenarios/:name/deactivate", (req, res) => {
        const name = req.params.name as string;
        const { customer } = activationBody(req);
        requireLoaded(name);
        const outcome = engine.deactivate(name, customer === undefined ? {} : { customer });
        res.json({
          scenario: name,
          customer,
          changed: outcome.kind === "deactivated",
          active: engine.list().active,
        });
      });
      router.all("/scenarios/:name/deactivate", methodNotAllowed(["POST"]));
    },
  };
}
