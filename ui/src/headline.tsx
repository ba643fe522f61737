/** The headline numbers from /_sim/metrics, read as the Prometheus text it is. */
import { useData } from "./use-data.ts";

function sum(text: string, name: string, labels = ""): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels !== "" && !line.includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

export function Headline(props: { tick: number }) {
  const [text] = useData<string>("/_sim/metrics", [props.tick]);
  if (text === undefined) return null;
  const numbers: [string, number][] = [
    // The public API's traffic only: the dashboard's own calls and other admin calls are shown apart.
    ["Requests (public API)", sum(text, "airtime_sim_http_requests_total", 'api="public"')],
    ["Admin requests", sum(text, "airtime_sim_http_requests_total", 'api="admin"')],
    ["Orders placed", sum(text, "airtime_sim_orders_placed_total")],
    ["Pending orders", sum(text, "airtime_sim_orders", 'status="0"')],
    ["Retained orders", sum(text, "airtime_sim_orders_retained")],
    ["Webhook attempts", sum(text, "airtime_sim_webhook_attempts")],
    ["Pending events", sum(text, "airtime_sim_pending_events")],
  ];
  return (
    <dl class="headline" aria-label="Headline numbers">
      {numbers.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          {/* Reloaded on live events, so what a given moment shows depends on timing. */}
          <dd data-volatile>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
