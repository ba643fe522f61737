/**
 * airtime-harness: a stateful simulator and a property-based contract
 * harness for the Kenyan airtime top-up API. Named exports only, grouped by
 * face of the package; every name is listed in docs/api.md.
 *
 * @example
 * import { createSimulator } from "airtime-harness";
 *
 * const sim = await createSimulator({ clock: "virtual" });
 * const url = await sim.listen();
 * // … drive `${url}/v1/airtime` with `Bearer ${sim.demo?.token}` …
 * await sim.clock.advance(2_000);
 * await sim.close();
 */

// The simulator
export { createSimulator } from "./simulator/create-simulator.ts";
export type { Simulator } from "./simulator/create-simulator.ts";
export type { DemoCustomerOptions, SimulatorOptions } from "./simulator/simulator-options.ts";
export type { CustomerInput } from "./simulator/customer-setup.ts";
export type { OrderLimits } from "./contract/public-schemas.ts";
export type { StatusDefinition, StatusTable } from "./contract/status-codes.ts";
export type { WebhookPluginOptions } from "./webhooks/webhook-plugin.ts";
export type { ScenarioOptions } from "./scenarios/options.ts";

// Configuration: the config file's schema, and loading a file as simulator options
export { SimulatorConfigSchema } from "./simulator/config-schema.ts";
export type { SimulatorConfig } from "./simulator/config-schema.ts";
export { ConfigError, loadSimulatorConfig } from "./simulator/config.ts";

// Failure scenarios: the scenario file's schema
export { ScenarioFileSchema } from "./scenarios/schema.ts";
export type { ScenarioDefinition } from "./scenarios/schema.ts";

// Extending the simulator: plugins, their admin routes, scenario engines
export type {
  AdminExtension,
  AdminExtensionSpec,
  AdminRouteKit,
  SimulatorContext,
  SimulatorPlugin,
  SimulatorPluginFactory,
} from "./domain/plugin-port.ts";
export type { RequestFacts, ResolvedEffects, ScenarioEngine } from "./domain/scenario-engine.ts";

// The public API's contract: request, response and webhook schemas
export {
  BalanceResponseSchema,
  FailedOrderResponseSchema,
  ProblemSchema,
  SendAirtimeRequestSchema,
  SendAirtimeResponseSchema,
  TokenResponseSchema,
  TransactionStatusResponseSchema,
} from "./contract/public-schemas.ts";
export type {
  BalanceResponse,
  FailedOrderResponse,
  Problem,
  SendAirtimeRequest,
  SendAirtimeResponse,
  TokenResponse,
  TransactionStatusResponse,
} from "./contract/public-schemas.ts";
export { WebhookPayloadSchema } from "./contract/webhook-schemas.ts";
export type { WebhookPayload } from "./contract/webhook-schemas.ts";

// Receiving webhooks: a test inbox, and signing and verifying as your handler does
export { createWebhookInbox } from "./webhooks/inbox.ts";
export type { InboxDelivery, WebhookInbox, WebhookInboxOptions } from "./webhooks/inbox.ts";
export { generateWebhookSecret, signWebhook, verifyWebhook } from "./webhooks/signing.ts";
export type { SignInput, VerifyOutcome } from "./webhooks/signing.ts";

// The contract harness: run the checks from your own test suite, and read or format the report
export { runContract } from "./harness/run-contract.ts";
export type { ContractOptions, ProgressEvent } from "./harness/contract-options.ts";
export type { CheckName } from "./harness/checks.ts";
export type { CheckVerdict, ContractReport, PropertyReport } from "./harness/report.ts";
export { formatConsoleReport } from "./harness/reporters/console-reporter.ts";
export { formatJsonReport } from "./harness/reporters/json-reporter.ts";
export { formatJUnitReport } from "./harness/reporters/junit-reporter.ts";
