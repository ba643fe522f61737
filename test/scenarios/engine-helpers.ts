/** Building scenarios and request facts for engine-level tests. */
import type { RequestFacts } from "../../src/domain/scenario-engine.ts";
import { type LoadedScenario, validateScenario } from "../../src/scenarios/load.ts";
import type { ScenarioFileInput } from "../../src/scenarios/schema.ts";

export function scenario(definition: ScenarioFileInput): LoadedScenario {
  const result = validateScenario(definition, `test:${definition.name}`);
  if (!result.ok) throw new Error(result.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "));
  return result.scenario;
}

export function facts(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return {
    customerId: "acme",
    account: "+254712345678",
    service: "safaricom",
    amountCents: 10_000,
    reference: "ref-1",
    headers: {},
    ...overrides,
  };
}
