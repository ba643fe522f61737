/**
 * How webhooks, scenarios and test-only extensions plug into the simulator:
 * a plugin is built from the simulator's context (its ports and domain
 * service) and contributes listeners, admin routes, request effects and a
 * shutdown step. createSimulator builds every plugin once, at start.
 */
import type { StatusTable } from "../contract/status-codes.ts";
import type { Order } from "../domain/model.ts";
import type { Clock, Ids, Random, Scheduler, Store } from "../domain/ports.ts";
import type { AirtimeService, OrderEvents } from "../domain/service-types.ts";
import type { AdminExtension, AdminExtensionSpec } from "../http/admin-extension.ts";
import type { ScenarioEngine } from "../domain/scenario-engine.ts";

export interface SimulatorContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly statusTable: StatusTable;
  readonly service: AirtimeService;
}

export interface SimulatorPlugin {
  readonly name: string;
  /** Told of every stored status change (after the store is updated). */
  readonly events?: OrderEvents;
  readonly admin?: AdminExtension;
  readonly adminSpec?: AdminExtensionSpec;
  /** Resolves scenario effects for send-airtime requests; several engines combine in order. */
  readonly scenarios?: ScenarioEngine;
  /**
   * Awaited after an order is placed and before its HTTP response is
   * written, when the order asks for it (webhook sent before the response).
   */
  beforeResponse?(order: Order): Promise<void>;
  /** Told of an admin reset (all, or one customer) so per-customer state is forgotten too. */
  reset?(customerId?: string): Promise<void>;
  /** Awaited until background work started so far (webhook attempts) has settled. */
  settle?(): Promise<void>;
  close?(): Promise<void>;
}

export type SimulatorPluginFactory = (context: SimulatorContext) => SimulatorPlugin | Promise<SimulatorPlugin>;
