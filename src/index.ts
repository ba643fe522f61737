/**
 * airtime-harness: a stateful simulator and a property-based contract
 * harness for the Kenyan airtime top-up API. Named exports only, grouped by
 * face of the package.
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
export type { Simulator, SimulatorClock } from "./simulator/create-simulator.ts";
export { createSimulator } from "./simulator/create-simulator.ts";
export type { DemoCustomerOptions, SimulatorOptions } from "./simulator/simulator-options.ts";
export type { CustomerInput } from "./simulator/customer-setup.ts";
export type { SimulatorConfig } from "./simulator/config-schema.ts";
export { SimulatorConfigSchema } from "./simulator/config-schema.ts";
export { ConfigError, loadSimulatorConfig } from "./simulator/config.ts";

// Extending the simulator (plugins, admin routes, scenario effects)
export type { AdminExtension, AdminExtensionSpec, AdminRouteKit } from "./simulator/plugin.ts";
export type { HttpFailure, RequestFacts, ResolvedEffects, ScenarioEngine } from "./domain/scenario-engine.ts";
export type { SimulatorContext, SimulatorPlugin, SimulatorPluginFactory } from "./simulator/plugin.ts";

// The contract: schemas and tables
export type { ErrorCode } from "./contract/error-codes.ts";
export { ERROR_CATALOGUE, ERROR_CODES } from "./contract/error-codes.ts";
export type { Service } from "./contract/operators.ts";
export { detectService, parseKenyanMobile, SERVICES } from "./contract/operators.ts";
export type {
  BalanceResponse,
  FailedOrderResponse,
  OrderLimits,
  Problem,
  SendAirtimeRequest,
  SendAirtimeResponse,
  TokenResponse,
  TransactionStatusResponse,
} from "./contract/public-schemas.ts";
export {
  BalanceResponseSchema,
  createSendAirtimeRequestSchema,
  DEFAULT_ORDER_LIMITS,
  FailedOrderResponseSchema,
  ProblemSchema,
  SendAirtimeRequestSchema,
  SendAirtimeResponseSchema,
  TokenResponseSchema,
  TransactionStatusResponseSchema,
} from "./contract/public-schemas.ts";
export type { StatusDefinition, StatusTable } from "./contract/status-codes.ts";
export { createStatusTable, DEFAULT_STATUS_DEFINITIONS, DEFAULT_STATUS_TABLE } from "./contract/status-codes.ts";
export type { WebhookPayload } from "./contract/webhook-schemas.ts";
export { WebhookPayloadSchema } from "./contract/webhook-schemas.ts";

// The admin API's contract
export type { AdminClock, AdminCustomer, AdminOrder, JournalEntry } from "./contract/admin-schemas.ts";
export {
  AdminClockSchema,
  AdminCustomerSchema,
  AdminOrderSchema,
  JournalEntrySchema,
} from "./contract/admin-schemas.ts";

// Failure scenarios: the file format, the engine, the plugin, the magic test accounts
export type { ManagedScenarioEngine, ScenarioEngineOptions, ScenarioListing } from "./scenarios/engine.ts";
export { createScenarioEngine } from "./scenarios/engine.ts";
export type { LoadedScenario, ScenarioIssue, ScenarioParseResult } from "./scenarios/load.ts";
export { formatScenarioIssue, parseScenarioText, readScenarioFiles, validateScenario } from "./scenarios/load.ts";
export type { MagicAccount } from "./scenarios/magic-accounts.ts";
export { MAGIC_ACCOUNTS } from "./scenarios/magic-accounts.ts";
export type { ScenarioOptions } from "./scenarios/options.ts";
export { ScenarioLoadError, ScenariosConfigSchema } from "./scenarios/options.ts";
export type { ScenariosPluginOptions } from "./scenarios/scenarios-plugin.ts";
export { createScenariosPlugin } from "./scenarios/scenarios-plugin.ts";
export type { ScenarioDefinition, ScenarioFileInput } from "./scenarios/schema.ts";
export { ScenarioFileSchema } from "./scenarios/schema.ts";

// Webhooks: signing, delivery with retries, the admin view of deliveries, the receiving inbox
export type {
  AdminDelivery,
  AdminDeliveryAttempt,
  AdminDeliveryDetail,
  AdminDeliveryList,
  AdminRedeliverResponse,
} from "./webhooks/admin-schemas.ts";
export {
  AdminDeliveryAttemptSchema,
  AdminDeliveryDetailSchema,
  AdminDeliveryListSchema,
  AdminDeliverySchema,
  AdminRedeliverResponseSchema,
} from "./webhooks/admin-schemas.ts";
export type {
  RedeliverOutcome,
  WebhookDispatcher,
  WebhookDispatcherDeps,
  WebhookDispatcherOptions,
} from "./webhooks/dispatcher.ts";
export { createWebhookDispatcher, WEBHOOK_ATTEMPT_JOB } from "./webhooks/dispatcher.ts";
export type {
  InboxDelivery,
  InboxRejection,
  InboxReply,
  InboxRequestInfo,
  InboxRequestRecord,
  InboxResponder,
  WaitForOptions,
  WebhookInbox,
  WebhookInboxOptions,
} from "./webhooks/inbox.ts";
export { createWebhookInbox } from "./webhooks/inbox.ts";
export { createMemoryDeliveryStore } from "./webhooks/memory-delivery-store.ts";
export type {
  AttemptOutcome,
  AttemptTrigger,
  Delivery,
  DeliveryAttempt,
  DeliveryFilter,
  DeliveryKind,
  DeliveryState,
  DeliveryStore,
} from "./webhooks/ports.ts";
export { DEFAULT_RETRY_SCHEDULE, parseSchedule } from "./webhooks/schedule.ts";
export type { SignedHeaders, SignInput, VerifyOutcome } from "./webhooks/signing.ts";
export { generateWebhookSecret, isWebhookSecret, signWebhook, verifyWebhook } from "./webhooks/signing.ts";
export type { WebhookPlugin, WebhookPluginOptions } from "./webhooks/webhook-plugin.ts";
export { createWebhookPlugin, findWebhookPlugin } from "./webhooks/webhook-plugin.ts";

// The contract harness: run the checks from your own test suite, and read or format the report
export { runContract } from "./harness/run-contract.ts";
export type { ContractOptions, ProgressEvent } from "./harness/contract-options.ts";
export type { CheckName } from "./harness/checks.ts";
export { CHECK_NAMES, CHECKS, selectChecks } from "./harness/checks.ts";
export type { PropertyName } from "./harness/property.ts";
export { PROPERTY_NAMES } from "./harness/property.ts";
export type {
  CheckFailureReport,
  CheckVerdict,
  ContractReport,
  FailureStep,
  PropertyReport,
} from "./harness/report.ts";
export { formatConsoleReport } from "./harness/reporters/console-reporter.ts";
export { formatJsonReport } from "./harness/reporters/json-reporter.ts";
export { formatJUnitReport } from "./harness/reporters/junit-reporter.ts";
export type { Fault } from "./harness/faults.ts";
export type { FaultProxy, ProxyObservation } from "./harness/fault-proxy.ts";
export { startFaultProxy } from "./harness/fault-proxy.ts";
