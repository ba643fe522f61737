/**
 * The dashboard: one page, its sections chosen by a tab bar (the URL
 * fragment holds the token, the tab and the open order: see place.ts). Live
 * events feed the plots' series and bump a counter the
 * sections reload on, a quarter-second after the last one, and at least once
 * a second while events keep coming, but never while the last reload's
 * calls are still out.
 */
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { callsInFlight, hasToken, streamEvents, type StreamState } from "./api.ts";
import { ApiReferenceView } from "./api-reference.tsx";
import { ClockView } from "./clock.tsx";
import { CustomersView } from "./customers.tsx";
import { Headline } from "./headline.tsx";
import { JournalView } from "./journal.tsx";
import { createLiveSeries } from "./live-series.ts";
import { OrdersView, OrderView } from "./orders.tsx";
import { readPlace, writePlace } from "./place.ts";
import { PlotsView } from "./plots.tsx";
import { createBalanceHistory } from "./balance-history.ts";
import { ScenariosView } from "./scenarios.tsx";
import "./style.css";

/** A reload waits this long after the last event... */
const QUIET_MS = 250;
/** ...but no longer than this after the first event it has not shown. */
const MAX_WAIT_MS = 1_000;

const TABS = ["Orders", "Plots", "Customers", "Scenarios", "Clock", "Journal", "API reference"] as const;
type Tab = (typeof TABS)[number];

function App() {
  const [place, setPlace] = useState(() => readPlace(TABS));
  const tab = place.tab as Tab;
  const order = place.order;
  const go = (next: { tab: Tab; order: string | undefined }) => (writePlace(next), setPlace(next));
  const setOrder = (id: string | undefined) => go({ tab, order: id });
  const [series] = useState(createLiveSeries);
  const [balances] = useState(createBalanceHistory);
  useEffect(() => {
    const restore = () => setPlace(readPlace(TABS));
    addEventListener("popstate", restore);
    return () => removeEventListener("popstate", restore);
  }, []);
  const [tick, setTick] = useState(0);
  const [stream, setStream] = useState<StreamState>("reconnecting");
  const idempotency = useRef(new Map<string, string>());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let burstStart: number | undefined;
    const bump = () => {
      const now = Date.now();
      burstStart ??= now;
      clearTimeout(timer);
      // Under a load test the events never pause: a reload waits for a quiet
      // moment, but never longer than a second after the burst began.
      const wait = Math.max(0, Math.min(QUIET_MS, burstStart + MAX_WAIT_MS - now));
      timer = setTimeout(reload, wait);
    };
    // The last reload's calls still out (a large Redis store answers a scrape slowly): wait for them.
    const reload = () => {
      if (callsInFlight() > 0) {
        timer = setTimeout(reload, QUIET_MS);
        return;
      }
      burstStart = undefined;
      setTick((t) => t + 1);
    };
    return streamEvents(({ event, data }) => {
      if (event === "request" && typeof data.idempotency === "string") {
        idempotency.current.set(String(data.requestId), data.idempotency);
      }
      series.accept({ event, data }, Date.now());
      bump();
    }, setStream);
  }, []);
  if (!hasToken() || stream === "refused") {
    // Nothing else on the page could load without the token, so this is all it shows.
    return (
      <main>
        <h1>Airtime simulator</h1>
        <p role="alert">
          {hasToken()
            ? "The simulator refused the admin token in this link: reopen the link the simulator printed (a restart without --admin-token prints a new one)."
            : "Open the link the simulator printed: it carries the admin token after #token=."}
        </p>
        <TokenForm />
      </main>
    );
  }
  return (
    <>
      <header>
        <h1>Airtime simulator</h1>
        <p class={stream === "live" ? "live on" : "live"} role="status">
          {stream === "live" ? "Live" : "Reconnecting…"}
        </p>
        <Headline tick={tick} />
        <nav aria-label="Sections">
          {TABS.map((name) => (
            <button
              key={name}
              aria-current={tab === name ? "page" : undefined}
              onClick={() => go({ tab: name, order: undefined })}
            >
              {name}
            </button>
          ))}
        </nav>
      </header>
      <main>
        {tab === "Orders" &&
          (order === undefined ? (
            <OrdersView tick={tick} open={setOrder} />
          ) : (
            <OrderView id={order} tick={tick} back={() => setOrder(undefined)} />
          ))}
        {tab === "Plots" && <PlotsView tick={tick} series={series} balances={balances} />}
        {tab === "Customers" && <CustomersView tick={tick} />}
        {tab === "Scenarios" && <ScenariosView />}
        {tab === "Clock" && <ClockView tick={tick} />}
        {tab === "Journal" && <JournalView tick={tick} idempotency={idempotency.current} />}
        {tab === "API reference" && <ApiReferenceView />}
      </main>
    </>
  );
}

/** Puts a pasted admin token into the fragment and loads the page with it, as the printed link would. */
function TokenForm() {
  const [value, setValue] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const params = new URLSearchParams({ token: value.trim() });
    location.hash = params.toString();
    location.reload();
  };
  return (
    <form onSubmit={submit} aria-label="Admin token">
      <label>
        Admin token (serve prints it; or use --admin-token)
        <input value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} autocomplete="off" />
      </label>
      <button type="submit" disabled={value.trim() === ""}>
        Open the dashboard
      </button>
    </form>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
