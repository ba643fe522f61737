/**
 * Every input the interface allows is drawn, and each one catches the defect
 * that only it reaches: keyless orders, keys in the body, orders from a
 * shortcode wallet, runs at zero delay and replays of evicted orders. Each
 * defect is planted in a real simulator behind a real port — by a proxy that
 * rewrites requests on their way, or by a domain function patched under the
 * server — and the correct simulator, seen the same way, passes.
 */
import { afterAll, describe, expect, test, vi } from "vitest";
import type * as Lifecycle from "../../src/domain/lifecycle.ts";
import type { Order } from "../../src/domain/model.ts";
import type * as MemoryStore from "../../src/store/memory-store.ts";
import type { CheckName } from "../../src/harness/checks.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { jsonOf, type ProxiedRequest, startRewritingProxy } from "./rewriting-proxy.ts";

/** Domain functions a case patches under the running simulator (off: the correct simulator). */
const patched = vi.hoisted(() => ({ zeroDelayDeferred: false, evictedReplayLost: false }));

vi.mock("../../src/domain/lifecycle.ts", async (importOriginal) => {
  const original = await importOriginal<typeof Lifecycle>();
  return {
    ...original,
    // Steps due at once are scheduled like any other instead of taken before the order is answered:
    // none is applied at the start, and the first step's job is the plan's first step, due at creation.
    createStatusChanges: (deps: Lifecycle.StatusChangesDeps): Lifecycle.StatusChanges => {
      const changes = original.createStatusChanges(deps);
      const deferred = (order: Order): boolean =>
        patched.zeroDelayDeferred && original.countImmediateSteps(order.plan ?? { steps: [] }) > 0;
      return {
        ...changes,
        start: async (order) => (deferred(order) ? order : changes.start(order)),
        scheduleFirst: async (order, ifAbsent) =>
          deferred(order)
            ? deps.scheduler.schedule({
                type: original.ORDER_STEP_JOB,
                dueAt: order.createdAt,
                payload: { orderId: order.id, stepIndex: 0, customerId: order.customerId },
                id: `step_${order.id}_0`,
                ifAbsent: ifAbsent === true,
              })
            : changes.scheduleFirst(order, ifAbsent),
      };
    },
  };
});

vi.mock("../../src/store/memory-store.ts", async (importOriginal) => {
  const original = await importOriginal<typeof MemoryStore>();
  return {
    ...original,
    // The evicted order's record is not found when its key is replayed: the replay answers 500.
    createMemoryStore: (...args: Parameters<typeof original.createMemoryStore>) => {
      const store = original.createMemoryStore(...args);
      const getEvictedOrder = store.getEvictedOrder.bind(store);
      store.getEvictedOrder = async (id, now) => (patched.evictedReplayLost ? undefined : getEvictedOrder(id, now));
      return store;
    },
  };
});

const TIMING_MS = 2000;
const DEMO_TOKEN = "demo-token-for-drawn-inputs";
/** Low, so runs evict orders and replay their keys. */
const MAX_ORDERS = 8;
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A request rewritten on its way to the simulator (undefined: sent as it came). */
type RequestDefect = (req: ProxiedRequest, body: Record<string, unknown>) => Partial<ProxiedRequest> | undefined;

/** Keyless orders all bind one key, named "undefined": the second keyless order is refused. */
const keylessBindsAKey: RequestDefect = (req, body) =>
  req.headers["idempotency-key"] === undefined && body.idempotencyKey === undefined
    ? { headers: { ...req.headers, "idempotency-key": "undefined" } }
    : undefined;

/** A key in the body is dropped: a retry with it places the order again. */
const bodyKeyIgnored: RequestDefect = (_req, { idempotencyKey, ...rest }) =>
  idempotencyKey === undefined ? undefined : { body: JSON.stringify(rest) };

/** The shortcode is dropped: the default wallet funds every order. */
const shortcodeIgnored: RequestDefect = (_req, { shortcode, ...rest }) =>
  shortcode === undefined ? undefined : { body: JSON.stringify(rest) };

/** The simulator on a virtual clock with admin powers, its orders rewritten on the way in by `defect`. */
async function startTarget(defect: RequestDefect | undefined) {
  const sim = await createSimulator({
    clock: "virtual",
    seed: 1,
    timing: { kind: "fixed", ms: TIMING_MS },
    demo: { token: DEMO_TOKEN },
    maxOrders: MAX_ORDERS,
  });
  const url = await sim.listen(0, "127.0.0.1");
  const proxy = await startRewritingProxy(url, async (req, forward) => {
    const body = req.method === "POST" && req.path === "/v1/airtime" ? jsonOf(req.body) : undefined;
    const change = body === undefined || defect === undefined ? undefined : defect(req, body);
    return forward(change);
  });
  closers.push(
    () => proxy.close(),
    () => sim.close(),
  );
  return { target: proxy.url, token: DEMO_TOKEN, adminUrl: url, adminToken: sim.adminToken, timingMs: TIMING_MS };
}

/** The model property's failed checks against a target (by default a few short runs: each input is drawn often). */
async function failedChecks(
  defect: RequestDefect | undefined,
  run: { readonly runs: number; readonly seed: number } = { runs: 30, seed: 5 },
): Promise<CheckName[]> {
  const report = await runContract({
    ...(await startTarget(defect)),
    properties: ["model"],
    ...run,
    maxFailures: 1,
    maxCommands: 20,
    // Only which checks fail is judged, not how small a failing case gets: failures are not shrunk.
    shrinkTimeMs: 0,
  });
  expect(report.errors).toEqual([]);
  return report.checks.filter((check) => check.status === "failed").map((check) => check.name);
}

/** The failed checks against the simulator with one domain function patched. */
async function failedChecksPatched(patch: keyof typeof patched): Promise<CheckName[]> {
  patched[patch] = true;
  try {
    return await failedChecks(undefined);
  } finally {
    patched[patch] = false;
  }
}

describe("each drawn input catches its planted defect", () => {
  test("keyless orders: a keyless order that binds a key fails the next keyless one", async () => {
    expect(await failedChecks(keylessBindsAKey)).toContain("status_code_conformance");
  });

  // The mutation run's seeds and run count: a keyless pair is drawn on its own, so every seed places one.
  test.each([1, 2, 3, 7])("keyless orders: the next keyless order refused is caught at seed %i", async (seed) => {
    expect(await failedChecks(keylessBindsAKey, { runs: 25, seed })).toContain("status_code_conformance");
  });

  test("the key in the body: a body key ignored places a retry again", async () => {
    expect(await failedChecks(bodyKeyIgnored)).toContain("idempotent_replay");
  });

  test("shortcode wallets: a shortcode ignored debits the default wallet", async () => {
    expect(await failedChecks(shortcodeIgnored)).toContain("no_double_charge");
  });

  test("zero delay: steps due at once left for later show a pending first answer", async () => {
    expect(await failedChecksPatched("zeroDelayDeferred")).toContain("lookup_consistent");
  });

  test("replay after eviction: an evicted order's replay answering 500 fails", async () => {
    expect(await failedChecksPatched("evictedReplayLost")).toContain("never_server_error");
  });

  test("the correct simulator, seen the same way, passes", async () => {
    expect(await failedChecks(undefined)).toEqual([]);
  });
});
