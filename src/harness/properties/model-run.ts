/**
 * The model-based property: a generated sequence of orders, retries (same
 * payload, changed payload, after a lost response, in parallel), lookups,
 * balance reads, time passing, forced outcomes and webhook waits, each judged
 * against the model. One fresh customer per run keeps runs independent, so a
 * shrunk run replays the same way.
 */
import type { LedgerEntry } from "../audit/ledger.ts";
import fc from "fast-check";
import { createPublicApi } from "../api.ts";
import { auditRun } from "../audit/run-audit.ts";
import { sleep } from "../audit/settle.ts";
import type { Checker } from "../checker.ts";
import { HarnessError } from "../checker.ts";
import type { CheckName } from "../checks.ts";
import { commandsArbitrary } from "../commands/command-set.ts";
import type { HarnessContext } from "../harness-context.ts";
import { committedOrders, createModel, isFinal, type ModelConfig } from "../model.ts";
import { CONFORMANCE_CHECKS, type ContractProperty, recordRun } from "../property.ts";
import type { RunContext, TargetClock } from "../run-context.ts";

const MAX_ORDERS_PER_RUN = 6;

export function createModelRunProperty(h: HarnessContext): ContractProperty {
  const webhooks = h.receiver !== undefined;
  const checks: CheckName[] = [
    ...CONFORMANCE_CHECKS,
    "idempotent_replay",
    "payload_mismatch_rejected",
    "no_double_charge",
    "lookup_consistent",
    "status_monotonic",
    ...(webhooks ? (["webhook_delivered", "webhook_signature_valid", "webhook_matches_lookup"] as const) : []),
  ];
  const timing = h.target.timingMs;
  const config: ModelConfig = {
    recipients: h.recipients,
    budget: h.budget,
    timingMs: timing,
    virtualClock: h.target.clockMode === "virtual" && h.target.admin !== undefined,
    admin: h.target.admin !== undefined,
    webhooks,
    statusTable: h.provider.statuses.table,
    statuses: h.provider.statuses,
    moves: h.profile === "strict" || h.provider.given.statuses ? "table" : "final_to_pending",
    maxOrders: MAX_ORDERS_PER_RUN,
    exactBalance: !h.sharedAccount,
  };
  const clock = targetClock(h);
  return {
    name: "model",
    summary: "model-based runs: orders, retries, lost responses, lookups, balances, time, webhooks",
    checks,
    build(env) {
      const commands = commandsArbitrary({
        admin: config.admin,
        webhooks,
        timingMs: timing,
        maxAdvanceMs: Math.round((timing ?? 2000) * 1.5),
        maxAmountCents: h.maxAmountCents,
        maxCommands: h.maxCommands,
        ...(h.provider.given.domain ? { domain: h.provider.domain } : {}),
        ...(env.replayPath === undefined ? {} : { replayPath: env.replayPath }),
      });
      return fc.asyncProperty(commands, (cmds) =>
        recordRun(env.recorder, async (transcript) => {
          const receiver = h.receiver;
          const earlierKept: LedgerEntry[] = [];
          const session = await h.target.newSession(h.subscription);
          const prefix = h.nextPrefix();
          const api = createPublicApi({
            client: h.faultClient,
            checker: env.checker,
            observe: h.observe,
            prism: h.prism,
            requestIdPrefix: prefix,
            profile: h.profile,
            provider: h.provider,
            ...(h.targetSpec === undefined ? {} : { targetSpec: h.targetSpec }),
            ...(h.tokens === undefined ? {} : { tokens: h.tokens }),
            waitOutRateLimits: h.profile === "interface",
          });
          const real: RunContext = {
            api,
            checker: env.checker,
            token: session.token,
            customerId: session.customerId,
            prefix,
            transcript,
            clock,
            admin: h.target.admin,
            receiver,
            timeouts: h.timeouts,
            timings: h.timings,
            profile: h.profile,
            provider: h.provider,
            earlierKept,
          };
          if (session.startBalanceCents === undefined) {
            await settleEarlierOrders(h, real);
            earlierKept.push(...(await stillKept(h, real)));
          }
          const start = session.startBalanceCents ?? (await readStartBalance(real, env.checker));
          const model = createModel(config, start);
          try {
            await h.timings.time("model steps", () => fc.asyncModelRun(() => ({ model, real }), cmds));
            await auditRun(model, real);
          } finally {
            for (const order of committedOrders(model)) {
              h.ledger.add({
                token: session.token,
                reference: order.reference,
                amountCents: order.amountCents,
                final: order.lastStatus !== undefined && isFinal(model, order.lastStatus),
                refunded: order.lastStatus !== undefined && h.provider.statuses.refunds(order.lastStatus),
              });
            }
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

/**
 * On an account earlier runs used, orders still open would move the balance
 * under this run's judgement: wait for them first (bounded by --final-timeout).
 */
async function settleEarlierOrders(h: HarnessContext, r: RunContext): Promise<void> {
  const open = h.ledger.open(r.token);
  if (open.length === 0) return;
  r.transcript.step(`wait for ${open.length} earlier order(s) on this account to become final`);
  const deadline = Date.now() + h.timeouts.finalMs;
  await Promise.all(
    open.map(async (entry) => {
      for (let wait = 20; Date.now() < deadline; wait = Math.min(h.timeouts.pollMs, wait * 2)) {
        const result = await r.api.lookup(entry.reference, { token: r.token });
        const status =
          result.kind === "response" ? h.provider.readOrder("lookup", result.response.json).status : undefined;
        if (typeof status === "number" && h.provider.statuses.isFinal(status)) {
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
async function stillKept(h: HarnessContext, r: RunContext): Promise<LedgerEntry[]> {
  const kept = h.ledger.kept(r.token);
  await Promise.all(
    kept.map(async (entry) => {
      const result = await r.api.lookup(entry.reference, { token: r.token });
      const status =
        result.kind === "response" ? h.provider.readOrder("lookup", result.response.json).status : undefined;
      if (status !== undefined && h.provider.statuses.refunds(status)) entry.refunded = true;
    }),
  );
  return kept.filter((entry) => !entry.refunded);
}

async function readStartBalance(r: RunContext, checker: Checker): Promise<number> {
  r.transcript.step("read the starting balance");
  const result = await r.api.balance({ token: r.token });
  if (result.kind !== "response") throw new HarnessError("the starting balance could not be read");
  checker.that(
    "status_code_conformance",
    result.response.status === 200,
    () => `GET /v1/balance answered HTTP ${result.response.status} with a valid token`,
  );
  const cents = r.provider.readBalanceCents(result.response.json);
  if (result.response.status !== 200 || cents === undefined) {
    throw new HarnessError(
      `GET /v1/balance: HTTP ${result.response.status}, no balance at ${r.provider.pointer("balance")}`,
    );
  }
  return cents;
}

/** Virtual clock with admin powers: advance it. Otherwise: wait, capped, on the wall clock. */
function targetClock(h: HarnessContext): TargetClock {
  const admin = h.target.admin;
  if (h.target.clockMode === "virtual" && admin !== undefined) {
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
      const wait = Math.min(ms, h.timeouts.maxWaitMs);
      const started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, wait));
      return Date.now() - started;
    },
  };
}
