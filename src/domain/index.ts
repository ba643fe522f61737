/**
 * The simulator's domain: its public API in one import. The embedded
 * adapters and `createEmbeddedDomain` (the domain wired on them) are in
 * `src/store/index.ts`.
 */

// The service and its outcomes
export { type AirtimeServiceDeps, createAirtimeService } from "./airtime-service.ts";
export { type CustomerAuthenticator, createCustomerAuthenticator, secretsEqual } from "./customer-auth.ts";
// Customers, tokens and authentication
export {
  type CreateCustomerOutcome,
  type CustomerDirectory,
  type CustomerDirectoryDeps,
  type CustomerInput,
  type CustomerUpdate,
  createCustomerDirectory,
  DEFAULT_CURRENCY,
  DEFAULT_TOKEN_TTL_SECONDS,
  type IssueTokenOutcome,
  type UpdateCustomerOutcome,
  type WalletInput,
} from "./customers.ts";
// Records and ports
export type { WebhookFaults } from "./faults.ts";
// Idempotency and request normalisation
export {
  createKeyedQueue,
  DEFAULT_IDEMPOTENCY_RETENTION_MS,
  fingerprintOrder,
  type KeyedQueue,
} from "./idempotency.ts";
export { createIds, createSequentialIds, ID_ALPHABET, ID_RANDOM_LENGTH, randomBase32 } from "./ids.ts";
// Lifecycle: plans, steps and status changes
export {
  assertLifecycleOptions,
  assertPlan,
  countImmediateSteps,
  createDefaultPlan,
  DEFAULT_LIFECYCLE,
  isOrderStepPayload,
  type LifecycleOptions,
  ORDER_STEP_JOB,
  type OrderStepPayload,
} from "./lifecycle.ts";
export type {
  Customer,
  IdempotencyRecord,
  IssuedToken,
  Order,
  OrderFingerprint,
  OutcomePlan,
  PlannedTransition,
  StatusHistoryEntry,
  Wallet,
  WebhookEndpoint,
} from "./model.ts";
export { createOrderEventBus, type OrderEventBus } from "./order-events.ts";
export { type NormalisedRequest, normaliseAccount, normaliseOrderRequest } from "./order-request.ts";
export type {
  ClaimResult,
  Clock,
  CustomerPatch,
  DebitResult,
  Ids,
  Job,
  JobHandler,
  Random,
  Scheduler,
  Store,
} from "./ports.ts";
// Randomness and ids
export { createSeededRandom, randomInt } from "./random.ts";
export type {
  AirtimeService,
  BalanceOutcome,
  OrderEvents,
  PlaceOrderCommand,
  PlaceOrderOutcome,
  StatusChange,
  TransitionOutcome,
} from "./service-types.ts";
export { createStatusChanges, type StatusChanges, type StatusChangesDeps } from "./status-changes.ts";
// Timing
export {
  DEFAULT_TIMING,
  formatTiming,
  parseDuration,
  parseTiming,
  sampleDelay,
  sampleStandardNormal,
  type Timing,
  TimingInputSchema,
  type TimingParseResult,
  TimingSchema,
  TimingTextSchema,
} from "./timing.ts";
