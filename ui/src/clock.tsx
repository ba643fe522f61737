/** Simulator time, what is pending, and the advance buttons of a virtual clock. */
import { useState } from "preact/hooks";
import { call } from "./api.ts";
import type { Schedule } from "./types.ts";
import { useAction } from "./use-action.ts";
import { LocalTime } from "./local-time.tsx";
import { useData } from "./use-data.ts";

const STEPS = [
  [1_000, "+1 s"],
  [60_000, "+1 min"],
  [3_600_000, "+1 h"],
] as const;

export function ClockView(props: { tick: number }) {
  const [custom, setCustom] = useState("");
  const { version, notice, act } = useAction();
  const [data, error] = useData<Schedule>("/_sim/schedule", [props.tick, version]);
  const advance = (ms: number) => act(`Advance ${ms} ms`, () => call("/_sim/clock/advance", { body: { ms } }));

  return (
    <section aria-labelledby="clock-title">
      <h2 id="clock-title">Clock</h2>
      {error !== undefined && <p role="alert">{error}</p>}
      {data !== undefined && (
        <dl class="facts">
          <dt>Mode</dt>
          <dd>{data.mode}</dd>
          <dt>Simulator time</dt>
          <dd data-testid="clock-now">
            <LocalTime at={data.now} />
          </dd>
          <dt>Pending events</dt>
          <dd data-testid="pending-events">{data.pendingEvents}</dd>
          <dt>Pending orders</dt>
          <dd data-testid="pending-orders">{data.pendingOrders}</dd>
          <dt>Next order step</dt>
          <dd data-testid="next-order-step">
            <LocalTime at={data.nextOrderStepAt} />
          </dd>
          <dt>Next webhook attempt</dt>
          <dd>
            <LocalTime at={data.nextWebhookAttemptAt} />
          </dd>
        </dl>
      )}
      {data?.mode === "virtual" ? (
        <div class="actions" role="group" aria-label="Advance the clock">
          {STEPS.map(([ms, label]) => (
            <button key={ms} onClick={() => advance(ms)}>
              {label}
            </button>
          ))}
          <label>
            Milliseconds
            <input
              inputMode="numeric"
              value={custom}
              onInput={(e) => setCustom((e.target as HTMLInputElement).value)}
            />
          </label>
          <button onClick={() => advance(Number(custom))}>Advance</button>
        </div>
      ) : (
        <p>The clock is real: start the simulator with --clock virtual to move it by hand.</p>
      )}
      {notice !== undefined && <p role="status">{notice}</p>}
    </section>
  );
}
