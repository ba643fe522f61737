/**
 * What the harness runs against. Without a target URL: an in-process
 * simulator on a virtual clock with a known timing — fast, deterministic and
 * fully predictable. With one: any deployment reached over HTTP; sim-only
 * powers (fresh customers, the clock, forced outcomes) only when an admin URL
 * and token are given.
 */
import { randomBytes } from "node:crypto";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import { type AdminClient, createAdminClient } from "./admin-client.ts";
import { HarnessError } from "./checker.ts";

export type TargetSpec =
  | {
      readonly kind: "in_process";
      /** Seeds the simulator (ids, delays), so a replay meets the same simulator. */
      readonly seed: number;
      /** Pending → final delay, ms (fixed, so statuses are predictable). */
      readonly timingMs: number;
      /** Extra simulator options (plugins …), e.g. deliberately broken variants in tests. */
      readonly simulator?: SimulatorOptions;
    }
  | {
      readonly kind: "remote";
      readonly url: string;
      readonly token: string;
      readonly otherToken?: string;
      readonly adminUrl?: string;
      readonly adminToken?: string;
      /** The target's fixed lifecycle timing, when known (used only with admin powers on a virtual clock). */
      readonly timingMs?: number;
    };

export interface Session {
  readonly token: string;
  /** Set when the harness created the customer. */
  readonly customerId: string | undefined;
  /** Known when the harness created the customer with this balance (cents). */
  readonly startBalanceCents: number | undefined;
}

export interface WebhookSubscription {
  readonly url: string;
  readonly secret: string;
}

export interface ResolvedTarget {
  readonly kind: "in_process" | "remote";
  /** The public API's base URL. */
  readonly url: string;
  /** What curl commands print as the base URL. */
  readonly displayUrl: string;
  readonly admin: AdminClient | undefined;
  readonly clockMode: "virtual" | "real";
  /** A known fixed lifecycle timing (in-process only). */
  readonly timingMs: number | undefined;
  /** Tokens the reports must never print. */
  readonly secrets: ReadonlyMap<string, string>;
  /** A customer for one run: fresh (admin powers) or the configured token. */
  newSession(webhook: WebhookSubscription | undefined): Promise<Session>;
  /** A second customer, for isolation checks; undefined when none is available. */
  otherSession(): Promise<Session | undefined>;
  /** A customer with an empty wallet (admin powers only), for the 402 answer. */
  emptySession(): Promise<Session | undefined>;
  close(): Promise<void>;
}

/**
 * The in-process simulator's order cap: low, so runs meet what lies past it
 * — lookups answered 410 order_evicted, and replays of evicted orders' keys,
 * which must still answer the order's id and status.
 */
const IN_PROCESS_MAX_ORDERS = 8;

/** Balance of each fresh customer the harness creates, KES: the default wallet's and the shortcode wallet's. */
const FRESH_CUSTOMER_BALANCE = 1_000_000;

/** The shortcode of the second wallet every fresh customer gets (§2.1: the shortcode selects the funding wallet). */
export const FRESH_CUSTOMER_SHORTCODE = "600100";

export async function resolveTarget(spec: TargetSpec): Promise<ResolvedTarget> {
  return spec.kind === "in_process" ? startInProcess(spec) : connectRemote(spec);
}

async function startInProcess(spec: Extract<TargetSpec, { kind: "in_process" }>): Promise<ResolvedTarget> {
  const { createSimulator } = await import("../simulator/create-simulator.ts");
  const sim = await createSimulator({
    demo: false,
    ...spec.simulator,
    clock: "virtual",
    seed: spec.seed,
    timing: { kind: "fixed", ms: spec.timingMs },
    failureRate: 0,
    maxOrders: spec.simulator?.maxOrders ?? IN_PROCESS_MAX_ORDERS,
  });
  const url = await sim.listen(0, "127.0.0.1");
  const admin = createAdminClient(url, sim.adminToken);
  const sessions = createSessionFactory(admin, new Map());
  let other: Session | undefined;
  return {
    kind: "in_process",
    url,
    displayUrl: "$AIRTIME_URL",
    admin,
    clockMode: "virtual",
    timingMs: spec.timingMs,
    secrets: sessions.secrets,
    newSession: (webhook) => sessions.create(webhook, "$AIRTIME_TOKEN"),
    async otherSession() {
      other ??= await sessions.create(undefined, "$AIRTIME_OTHER_TOKEN");
      return other;
    },
    emptySession: () => sessions.create(undefined, "$AIRTIME_EMPTY_TOKEN", 0),
    close: () => sim.close(),
  };
}

async function connectRemote(spec: Extract<TargetSpec, { kind: "remote" }>): Promise<ResolvedTarget> {
  const admin =
    spec.adminUrl !== undefined && spec.adminToken !== undefined
      ? createAdminClient(spec.adminUrl, spec.adminToken)
      : undefined;
  const clockMode = admin === undefined ? "real" : (await admin.clock()).mode;
  const secrets = new Map<string, string>([[spec.token, "$AIRTIME_TOKEN"]]);
  if (spec.otherToken !== undefined) secrets.set(spec.otherToken, "$AIRTIME_OTHER_TOKEN");
  const sessions = admin === undefined ? undefined : createSessionFactory(admin, secrets);
  let other: Session | undefined;
  return {
    kind: "remote",
    url: spec.url,
    displayUrl: spec.url.replace(/\/+$/, ""),
    admin,
    clockMode,
    timingMs: clockMode === "virtual" ? spec.timingMs : undefined,
    secrets,
    async newSession(webhook) {
      if (sessions !== undefined) return sessions.create(webhook, "$AIRTIME_TOKEN");
      return { token: spec.token, customerId: undefined, startBalanceCents: undefined };
    },
    async otherSession() {
      if (spec.otherToken !== undefined) {
        return { token: spec.otherToken, customerId: undefined, startBalanceCents: undefined };
      }
      if (sessions === undefined) return undefined;
      other ??= await sessions.create(undefined, "$AIRTIME_OTHER_TOKEN");
      return other;
    },
    async emptySession() {
      return sessions?.create(undefined, "$AIRTIME_EMPTY_TOKEN", 0);
    },
    async close() {},
  };
}

/** Fresh customers through the admin API; their tokens are secrets like any other. */
function createSessionFactory(admin: AdminClient, secrets: Map<string, string>) {
  const nonce = randomBytes(4).toString("hex");
  let counter = 0;
  return {
    secrets,
    async create(
      webhook: WebhookSubscription | undefined,
      variable: string,
      balance = FRESH_CUSTOMER_BALANCE,
    ): Promise<Session> {
      counter++;
      const token = `harness-${nonce}-${counter}-${randomBytes(12).toString("hex")}`;
      const customer = await admin.createCustomer({
        id: `harness-${nonce}-${counter}`,
        name: `Contract harness run ${counter}`,
        token,
        balance,
        wallets: [{ shortcode: FRESH_CUSTOMER_SHORTCODE, balance }],
        ...(webhook === undefined ? {} : { webhook: { url: webhook.url, secrets: [webhook.secret] } }),
      });
      if (!customer.tokens.includes(token)) throw new HarnessError("the admin API did not keep the customer's token");
      secrets.set(token, variable);
      return { token, customerId: customer.id, startBalanceCents: balance * 100 };
    },
  };
}
