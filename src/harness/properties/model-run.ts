/**
 * The model-based property: a generated sequence of orders, retries (same
 * payload, changed payload, after a lost response, in parallel), lookups,
 * balance reads, time passing, forced outcomes and webhook waits, each judged
 * against the model. One fresh customer per run keeps runs independent, so a
 * shrunk run replays the same way.
 */
import type { LedgerEntry } from "../audit/ledger.ts";
import fc from "fast-check";
import { SUCCESS_STATUS } from "../../contract/status-codes.ts";
import type { AdminClient } from "../admin-client.ts";
import { type BalanceWave, type BalanceWaves, createBalanceWaves } from "../audit/balance-waves.ts";
import { auditRun, judgeBalance } from "../audit/run-audit.ts";
import { sleep } from "../audit/settle.ts";
import type { Checker } from "../checker.ts";
import { HarnessError } from "../checker.ts";
import type { CheckName } from "../checks.ts";
import { commandsArbitrary } from "../commands/command-set.ts";
import { clockScaleMs } from "../contract-settings.ts";
import { type HarnessContext, harnessApi } from "../harness-context.ts";
import { type LaneSet, MAX_LANES } from "../lanes.ts";
import { committedOrders, createModel, type HarnessModel, isFinal, type ModelConfig } from "../model.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, type PropertyEnv, recordRun } from "../property.ts";
import type { RunContext, TargetClock } from "../run-context.ts";
import { FRESH_CUSTOMER_SHORTCODE, type Session } from "../target.ts";
import type { Transcript } from "../transcript.ts";

const MAX_ORDERS_PER_RUN = 6;

export function createModelRunProperty(harness: HarnessContext): ContractProperty {
  const webhooks = harness.receiver !== undefined;
  const checks: CheckName[] = [
    ...CONFORMANCE_CHECKS,
    "idempotent_replay",
    "payload_mismatch_rejected",
    "no_double_charge",
    "lookup_consistent",
    "status_monotonic",
    ...(webhooks ? (["webhook_delivered", "webhook_signature_valid", "webhook_matches_lookup"] as const) : []),
  ];
  const timing = harness.target.timingMs;
  const config: ModelConfig = {
    recipients: harness.recipients,
    budget: harness.budget,
    timingMs: timing,
    virtualClock: harness.target.clockMode === "virtual" && harness.target.admin !== undefined,
    admin: harness.target.admin !== undefined,
    webhooks,
    statusTable: harness.provider.statuses.table,
    statuses: harness.provider.statuses,
    moves: harness.profile === "strict" || harness.provider.given.statuses ? "table" : "final_to_pending",
    maxOrders: MAX_ORDERS_PER_RUN,
    exactBalance: !harness.sharedAccount,
    // Fresh customers (admin powers) have a shortcode wallet beside the default one.
    shortcode: harness.target.admin === undefined ? undefined : FRESH_CUSTOMER_SHORTCODE,
  };
  const clock = targetClock(harness);
  // Runs on the configured account share it; their waves are per search (per lane set).
  const wavesByLanes = new WeakMap<LaneSet, AccountWaves>();
  const wavesOf = (lanes: LaneSet): AccountWaves => {
    const waves = wavesByLanes.get(lanes) ?? createBalanceWaves(lanes);
    wavesByLanes.set(lanes, waves);
    return waves;
  };
  return {
    name: "model",
    summary: "model-based runs: orders, retries, lost responses, lookups, balances, time, webhooks",
    checks,
    // A virtual clock is one for every run: runs advancing it side by side would move each other's orders.
    lanes: clock.mode === "real" ? MAX_LANES : 1,
    build(env) {
      const maxAdvanceMs = Math.round(clockScaleMs(timing) * 1.5);
      const commands = commandsArbitrary({
        admin: config.admin,
        webhooks,
        maxAdvanceMs,
        landingMs: timing ?? maxAdvanceMs,
        maxAmountCents: harness.maxAmountCents,
        maxCommands: harness.maxCommands,
        ...(harness.provider.given.domain ? { domain: harness.provider.domain } : {}),
        ...(env.replayPath === undefined ? {} : { replayPath: env.replayPath }),
      });
      const timings = runTimingArbitrary(timing, config.virtualClock);
      return fc.asyncProperty(commands, timings, (cmds, runMs) =>
        recordRun(env.recorder, async (transcript) => {
          const session = await harness.target.newSession(harness.subscription);
          const real = modelRunContext(harness, env, { session, clock, transcript });
          await applyRunTiming(harness.target.admin, session.customerId, { runMs, targetMs: timing }, transcript);
          const { cents, wave } = await startingBalance(session, real, () => wavesOf(env.lanes));
          const model = createModel({ ...config, timingMs: runMs }, cents);
          try {
            await harness.timings.time("model steps", () => fc.asyncModelRun(() => ({ model, real }), cmds));
            await auditRun(model, real);
            if (wave === undefined) await judgeBalance([model], real);
            else await wave.finish(model, (models) => judgeBalance(models, real));
          } finally {
            wave?.abandon();
            recordOrders(harness, model, session.token);
          }
        }),
      );
    },
    replayPathOf(counterexample) {
      const text = String(counterexample[0] ?? "");
      return /replayPath="([^"]*)"/.exec(text)?.[1];
    },
  };
}

/** The account's state when a wave of runs starts on it: its balance, and earlier orders kept then. */
interface AccountStart {
  readonly cents: number;
  readonly earlierKept: readonly LedgerEntry[];
}
type AccountWaves = BalanceWaves<AccountStart, HarnessModel>;

/** A run's real side: its customer, the API that judges the answers, its transcript and clock. */
function modelRunContext(
  harness: HarnessContext,
  env: PropertyEnv,
  run: { session: Session; clock: TargetClock; transcript: Transcript },
): RunContext & { readonly earlierKept: LedgerEntry[] } {
  const prefix = harness.nextPrefix();
  return {
    ...harness,
    api: harnessApi(harness, env.checker, prefix, "through_proxy"),
    checker: env.checker,
    token: run.session.token,
    customerId: run.session.customerId,
    prefix,
    transcript: run.transcript,
    clock: run.clock,
    earlierKept: [],
    accountMovedMidRun: run.session.startBalanceCents === undefined && env.lanes.count > 1,
  };
}

/**
 * A fresh customer's balance is known; the configured account's is read
 * when the run's wave opens, and its earlier kept orders with it.
 */
async function startingBalance(
  session: Session,
  real: RunContext & { readonly earlierKept: LedgerEntry[] },
  waves: () => AccountWaves,
): Promise<{ cents: number; wave: BalanceWave<AccountStart, HarnessModel> | undefined }> {
  if (session.startBalanceCents !== undefined) return { cents: session.startBalanceCents, wave: undefined };
  const wave = await waves().join(() => openAccount(real, real));
  real.earlierKept.push(...wave.start.earlierKept);
  return { cents: wave.start.cents, wave };
}

/**
 * The configured account, before a wave of runs uses it: earlier orders
 * still open would move the balance under the wave's judgement, so they are
 * settled first; then the kept ones and the starting balance are read.
 */
async function openAccount(harness: HarnessContext, real: RunContext): Promise<AccountStart> {
  await settleEarlierOrders(harness, real);
  const earlierKept = await stillKept(harness, real);
  return { cents: await readStartBalance(real, real.checker), earlierKept };
}

/**
 * Every order the run committed goes into the shared ledger, so later runs
 * on the account can account for it, and among the run's promises, which
 * the late audit judges again.
 */
function recordOrders(harness: HarnessContext, model: ReturnType<typeof createModel>, token: string): void {
  const seenAt = Date.now();
  for (const order of committedOrders(model)) {
    harness.promises.add({
      token,
      reference: order.reference,
      key: order.key,
      keyIn: order.keyIn,
      payload: { ...order.payload },
      amountCents: order.amountCents,
      id: order.id,
      status: order.lastStatus,
      final: order.lastStatus !== undefined && isFinal(model, order.lastStatus),
      seenAt,
    });
    harness.ledger.add({
      token,
      reference: order.reference,
      amountCents: order.amountCents,
      final: order.lastStatus !== undefined && isFinal(model, order.lastStatus),
      refunded: order.lastStatus !== undefined && harness.provider.statuses.refunds(order.lastStatus),
    });
  }
}

/**
 * On an account earlier runs used, orders still open would move the balance
 * under this run's judgement: wait for them first (bounded by --final-timeout).
 */
async function settleEarlierOrders(harness: HarnessContext, real: RunContext): Promise<void> {
  const open = harness.ledger.open(real.token);
  if (open.length === 0) return;
  real.transcript.step(`wait for ${open.length} earlier order(s) on this account to become final`);
  const deadline = Date.now() + harness.timeouts.finalMs;
  await Promise.all(
    open.map(async (entry) => {
      for (let wait = 20; Date.now() < deadline; wait = Math.min(harness.timeouts.pollMs, wait * 2)) {
        const result = await real.api.lookup(entry.reference, { token: real.token });
        const status =
          result.kind === "response" ? harness.provider.readOrder("lookup", result.response.json).status : undefined;
        // Gone (410, evicted) or not found (the run that placed it judged that): it cannot be seen, so it
        // is not waited for — polling it to the final timeout would stall every run after it.
        const unseen = [410, harness.provider.resolved.http.notFound ?? 404];
        const gone = result.kind === "response" && unseen.includes(result.response.status);
        if (gone || (typeof status === "number" && harness.provider.statuses.isFinal(status))) {
          entry.final = true;
          return;
        }
        await sleep(wait);
      }
    }),
  );
}

/**
 * Earlier orders on this account still kept (not refunded) just before the
 * starting balance is read: a later reversal of one of them moves the
 * balance under this run, and the audit accounts for exactly these.
 */
async function stillKept(harness: HarnessContext, real: RunContext): Promise<LedgerEntry[]> {
  const kept = harness.ledger.kept(real.token);
  await Promise.all(
    kept.map(async (entry) => {
      const result = await real.api.lookup(entry.reference, { token: real.token });
      const status =
        result.kind === "response" ? harness.provider.readOrder("lookup", result.response.json).status : undefined;
      if (status !== undefined && harness.provider.statuses.refunds(status)) entry.refunded = true;
    }),
  );
  return kept.filter((entry) => !entry.refunded);
}

async function readStartBalance(real: RunContext, checker: Checker): Promise<number> {
  real.transcript.step("read the starting balance");
  const result = await real.api.balance({ token: real.token });
  if (result.kind !== "response") throw new HarnessError("the starting balance could not be read");
  checker.that(
    "status_code_conformance",
    result.response.status === 200,
    () => `GET /v1/balance answered HTTP ${result.response.status} with a valid token`,
  );
  const cents = real.provider.readBalanceCents(result.response.json);
  if (result.response.status !== 200 || cents === undefined) {
    throw new HarnessError(
      `GET /v1/balance: HTTP ${result.response.status}, no balance at ${real.provider.pointer("balance")}`,
    );
  }
  return cents;
}

/** Virtual clock with admin powers: advance it. Otherwise: wait, capped, on the wall clock. */
function targetClock(harness: HarnessContext): TargetClock {
  const admin = harness.target.admin;
  if (harness.target.clockMode === "virtual" && admin !== undefined) {
    return {
      mode: "virtual",
      async advance(ms) {
        // Even 0: it runs the jobs already due (a webhook attempt after a forced outcome).
        await admin.advance(ms);
        return ms;
      },
    };
  }
  return {
    mode: "real",
    async advance(ms) {
      const wait = Math.min(ms, harness.timeouts.maxWaitMs);
      const started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, wait));
      return Date.now() - started;
    },
  };
}

/**
 * The lifecycle timing of one model run. Where the harness can both know
 * and set it — a simulator with admin powers on a virtual clock and a known
 * timing — runs draw it: mostly the target's own, sometimes zero (every
 * order final before its answer) or one millisecond (final at the first
 * tick). A run at another timing activates, for its fresh customer only, a
 * scenario whose one path step is that delay; the simulator's own timing
 * stays as it is for every other customer.
 */

/** The timings a run may take besides the target's own, ms. */
const OTHER_TIMINGS_MS = [0, 1] as const;

/** The timing of each run: the target's own (undefined when unknown or not settable), or another one. */
function runTimingArbitrary(targetMs: number | undefined, settable: boolean): fc.Arbitrary<number | undefined> {
  if (targetMs === undefined || !settable) return fc.constant(targetMs);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(targetMs) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_TIMINGS_MS) },
  );
}

/**
 * Gives `customerId`'s orders the run's timing, when it is not the target's
 * own: a scenario named after the delay, loaded (again: loading replaces)
 * and activated for the customer.
 */
async function applyRunTiming(
  admin: AdminClient | undefined,
  customerId: string | undefined,
  timing: { readonly runMs: number | undefined; readonly targetMs: number | undefined },
  transcript: Transcript,
): Promise<void> {
  const { runMs, targetMs } = timing;
  if (admin === undefined || customerId === undefined || runMs === undefined || runMs === targetMs) return;
  const name = `harness-timing-${runMs}ms`;
  transcript.step(`this run's orders become final ${runMs} ms after placement (scenario ${name})`);
  await admin.loadScenario({
    name,
    description: `Every order of the customers it is active for becomes final ${runMs} ms after placement.`,
    rules: [{ name: "final-after", effects: { path: [{ status: SUCCESS_STATUS, after: `${runMs}ms` }] } }],
  });
  await admin.activateScenario(name, customerId);
}
