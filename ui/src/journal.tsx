/** Recent requests, newest first; idempotent replays and mismatches (seen live) and errors stand out. */
import type { JournalEntry } from "./types.ts";
import { TableHead } from "./table-head.tsx";
import { LocalTime } from "./local-time.tsx";
import { useData } from "./use-data.ts";

export function JournalView(props: { tick: number; idempotency: ReadonlyMap<string, string> }) {
  const [data, error] = useData<{ entries: JournalEntry[] }>("/_sim/journal?limit=200", [props.tick]);
  const entries = (data?.entries ?? []).filter((e) => !e.path.startsWith("/_sim")).reverse();
  return (
    <section aria-labelledby="journal-title">
      <h2 id="journal-title">Journal</h2>
      {error !== undefined && <p role="alert">{error}</p>}
      <table>
        <TableHead columns={["Time", "Request", "Status", "Customer", "Idempotency", "Scenario rules", "ms"]} />
        <tbody>
          {entries.map((e) => {
            const key = props.idempotency.get(e.requestId) ?? "";
            const flag = key === "replayed" || key === "mismatch" ? key : e.status >= 400 ? "error" : "";
            return (
              <tr key={e.id} class={flag}>
                <td>
                  <LocalTime at={e.at} />
                </td>
                <td>
                  <code>
                    {e.method} {e.path}
                  </code>
                </td>
                <td>{e.status}</td>
                <td>{e.customerId ?? "—"}</td>
                <td>{key === "" ? "—" : key}</td>
                <td>{e.fired.join(", ") || "—"}</td>
                <td>{e.durationMs}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
