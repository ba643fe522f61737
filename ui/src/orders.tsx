/** The live order table with its filters, and one order's page. */
import { useState } from "preact/hooks";
import { call } from "./api.ts";
import { statusClass } from "./status-class.ts";
import type { AdminCustomer, AdminOrder, Delivery, JournalEntry } from "./types.ts";
import { TableHead } from "./table-head.tsx";
import { useAction } from "./use-action.ts";
import { LocalTime } from "./local-time.tsx";
import { useData } from "./use-data.ts";

const FINAL_ACTIONS = [
  ["succeed", "Force success"],
  ["fail", "Force failure"],
  ["timeout", "Force timeout"],
  ["reverse", "Force reversal"],
] as const;

/**
 * Whether an order in this class can still be forced: a pending order to
 * anything, a successful one only to a reversal, a failed one no further
 * (the simulator's transition rules, shown before a click is refused).
 */
const forceable = (kind: string, action: string): boolean =>
  kind === "pending" || kind === "" || (kind === "success" && action === "reverse");

export function OrdersView(props: { tick: number; open: (id: string) => void }) {
  const [filter, setFilter] = useState({ customer: "", status: "", service: "", reference: "" });
  // The newest thousand: under a load test the oldest would never change.
  const query = new URLSearchParams({ limit: "1000", order: "newest" });
  if (filter.customer !== "") query.set("customer", filter.customer);
  if (filter.status !== "") query.set("status", filter.status);
  if (filter.reference !== "") query.set("reference", filter.reference);
  const [data, error] = useData<{ orders: AdminOrder[] }>(`/_sim/orders?${query}`, [props.tick]);
  // Already newest first, in creation order even within one millisecond.
  const orders = (data?.orders ?? []).filter((o) => filter.service === "" || o.service === filter.service);
  const field = (name: keyof typeof filter, label: string) => (
    <label>
      {label}
      <input
        name={name}
        value={filter[name]}
        onInput={(e) => setFilter({ ...filter, [name]: (e.target as HTMLInputElement).value.trim() })}
      />
    </label>
  );
  return (
    <section aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {field("customer", "Customer")}
        {field("status", "Status")}
        {field("service", "Service")}
        {field("reference", "Reference")}
      </form>
      {error !== undefined && <p role="alert">{error}</p>}
      <table>
        <TableHead columns={["Reference", "Customer", "Service", "Amount", "Status", "Created"]} />
        <tbody>
          {orders.map((o) => (
            <tr key={o.id} data-order={o.reference}>
              <td>
                <button class="link" onClick={() => props.open(o.id)}>
                  {o.reference}
                </button>
              </td>
              <td>{o.customerId}</td>
              <td>{o.service}</td>
              <td>
                {o.amount} {o.currency}
              </td>
              <td class={`status ${statusClass(o.status)}`}>
                {o.status} {o.message}
              </td>
              <td>
                <LocalTime at={o.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {orders.length === 0 && <p>No orders yet.</p>}
    </section>
  );
}

/** The journal entry of the request that placed the order: the customer's last POST before it existed. */
function placingRequest(entries: JournalEntry[], order: AdminOrder): JournalEntry | undefined {
  const created = Date.parse(order.createdAt);
  return entries.filter((e) => e.method === "POST" && e.path.split("?")[0] === "/v1/airtime" && e.at <= created).at(-1);
}

/**
 * The body `POST /v1/airtime` answered when the order was placed: its first
 * status, whatever it has become since (the order now is shown above).
 */
function asPlaced(order: AdminOrder): Pick<AdminOrder, "id" | "reference" | "status" | "message"> {
  const first = order.history[0] ?? order;
  return { id: order.id, reference: order.reference, status: first.status, message: first.message };
}

export function OrderView(props: { id: string; tick: number; back: () => void }) {
  const { version, notice, act } = useAction();
  const deps = [props.tick, version];
  const [order, error] = useData<AdminOrder>(`/_sim/orders/${encodeURIComponent(props.id)}`, deps);
  const customerId = order?.customerId;
  const [customer] = useData<AdminCustomer>(
    customerId === undefined ? undefined : `/_sim/customers/${encodeURIComponent(customerId)}`,
    deps,
  );
  const [journal] = useData<{ entries: JournalEntry[] }>(
    customerId === undefined ? undefined : `/_sim/journal?customer=${encodeURIComponent(customerId)}`,
    deps,
  );
  const [listing] = useData<{ deliveries: Delivery[] }>(`/_sim/deliveries?order=${encodeURIComponent(props.id)}`, deps);
  const deliveries = listing?.deliveries;

  if (order === undefined) return <p role={error === undefined ? "status" : "alert"}>{error ?? "Loading…"}</p>;
  const placing = journal === undefined ? undefined : placingRequest(journal.entries, order);
  const wallet = customer?.wallets.find((w) => w.shortcode === order.shortcode);
  return (
    <section aria-labelledby="order-title">
      <button onClick={props.back}>← All orders</button>
      <h2 id="order-title">Order {order.reference}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd class={`status ${statusClass(order.status)}`} data-testid="order-status">
          {order.status} {order.message}
        </dd>
        <dt>Customer</dt>
        <dd>{order.customerId}</dd>
        <dt>Account</dt>
        <dd>
          {order.account} ({order.service})
        </dd>
        <dt>Amount</dt>
        <dd>
          {order.amount} {order.currency}
        </dd>
        <dt>Wallet balance</dt>
        <dd data-testid="wallet-balance">{wallet === undefined ? "—" : `${wallet.balance} ${wallet.currency}`}</dd>
        <dt>Id</dt>
        <dd>{order.id}</dd>
      </dl>
      <div class="actions" role="group" aria-label="Force an outcome">
        {FINAL_ACTIONS.map(([action, label]) => (
          <button
            key={action}
            disabled={!forceable(statusClass(order.status), action)}
            title={
              forceable(statusClass(order.status), action) ? undefined : "The order is final: no such step from here"
            }
            onClick={() =>
              act(label, () => call(`/_sim/orders/${encodeURIComponent(order.id)}/transition`, { body: { action } }))
            }
          >
            {label}
          </button>
        ))}
      </div>
      {notice !== undefined && <p role="status">{notice}</p>}
      <h3>Timeline</h3>
      <ol data-testid="timeline">
        {order.history.map((h, i) => (
          <li key={i}>
            <LocalTime at={h.at} /> — {h.status} {h.message}
          </li>
        ))}
      </ol>
      <h3>Placing request</h3>
      {placing === undefined ? (
        <p>Not in the journal (it keeps the newest requests only).</p>
      ) : (
        <>
          <p>
            <code>
              {placing.method} {placing.path}
            </code>{" "}
            → {placing.status} in{" "}
            <span data-volatile>
              {placing.durationMs} ms (request {placing.requestId})
            </span>
          </p>
          <h3>Scenario effects fired</h3>
          <p data-testid="fired">{placing.fired.length === 0 ? "None." : placing.fired.join(", ")}</p>
        </>
      )}
      <h3>Response (the order as placed)</h3>
      <pre data-testid="as-placed">{JSON.stringify(asPlaced(order), null, 2)}</pre>
      <h3>Webhook deliveries</h3>
      {deliveries === undefined || deliveries.length === 0 ? (
        <p>No webhook deliveries.</p>
      ) : (
        deliveries.map((d) => <DeliveryView key={d.id} delivery={d} tick={props.tick + version} act={act} />)
      )}
    </section>
  );
}

function DeliveryView(props: {
  delivery: Delivery;
  tick: number;
  act: (what: string, run: () => Promise<unknown>) => Promise<unknown>;
}) {
  const { delivery } = props;
  const [detail] = useData<Delivery>(`/_sim/deliveries/${encodeURIComponent(delivery.id)}`, [props.tick]);
  return (
    <article class="delivery" aria-label={`Delivery ${delivery.id}`}>
      <h4>
        {delivery.kind} webhook, status {delivery.status}: {delivery.state}
      </h4>
      <button
        onClick={() =>
          props.act("Redeliver", () =>
            call(`/_sim/deliveries/${encodeURIComponent(delivery.id)}/redeliver`, { body: {} }),
          )
        }
      >
        Redeliver
      </button>
      <ol data-testid="attempts">
        {(detail?.attempts ?? []).map((a) => (
          <li key={a.number}>
            <p>
              Attempt {a.number} ({a.trigger}) at <LocalTime at={a.sentAt} />: {a.outcome},{" "}
              {a.responseStatus ?? a.error ?? "no answer"}, <span data-volatile>{a.latencyMs ?? "—"} ms</span>
            </p>
            <details>
              <summary>Headers and body</summary>
              <pre>
                {Object.entries(a.requestHeaders)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join("\n")}
              </pre>
              <pre>{a.requestBody.slice(0, 400)}</pre>
            </details>
          </li>
        ))}
      </ol>
    </article>
  );
}
