/**
 * "Try it" for the three public operations: a customer token picked from the
 * customers list (shown masked), a body prefilled from the spec's example with
 * a fresh reference and idempotency key, and the raw answer. It calls the
 * public API itself, as an integrator would, not the admin API.
 */
import { useState } from "preact/hooks";
import { mask } from "./customers.tsx";
import type { AdminCustomer } from "./types.ts";
import { useData } from "./use-data.ts";

export interface Spec {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> } }>
  >;
}

const OPERATIONS = [
  { label: "POST /v1/airtime", method: "POST", path: "/v1/airtime" },
  { label: "GET /v1/airtime/{reference}", method: "GET", path: "/v1/airtime/{reference}" },
  { label: "GET /v1/balance", method: "GET", path: "/v1/balance" },
] as const;

interface Answer {
  status: number;
  headers: string;
  body: string;
}

const fresh = (): string => crypto.randomUUID();

/** The spec's first request example, with a reference no earlier order used. */
function exampleBody(spec: Spec): string {
  const examples = spec.paths["/v1/airtime"]?.post?.requestBody?.content["application/json"]?.examples ?? {};
  const first = Object.values(examples)[0]?.value ?? {};
  return JSON.stringify({ ...(first as object), reference: `try-${fresh().slice(0, 8)}` }, null, 2);
}

export function TryIt(props: { spec: Spec }) {
  const [customers] = useData<{ customers: AdminCustomer[] }>("/_sim/customers", []);
  const tokens = (customers?.customers ?? []).flatMap((c) => c.tokens.map((t) => ({ customer: c, token: t })));
  const [operation, setOperation] = useState(0);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const [body, setBody] = useState(() => exampleBody(props.spec));
  const [key, setKey] = useState(fresh);
  const [reference, setReference] = useState("");
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const op = OPERATIONS[operation] ?? OPERATIONS[0];
  const token = chosen ?? tokens[0]?.token ?? "";

  const send = async () => {
    setError(undefined);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (op.method === "POST") Object.assign(headers, { "content-type": "application/json", "idempotency-key": key });
    try {
      const res = await fetch(op.path.replace("{reference}", encodeURIComponent(reference)), {
        method: op.method,
        headers,
        body: op.method === "POST" ? body : null,
      });
      const text = await res.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Not JSON: shown as it came.
      }
      setAnswer({
        status: res.status,
        headers: [...res.headers].map(([n, v]) => `${n}: ${v}`).join("\n"),
        body: shown,
      });
      if (op.method === "POST") {
        const sent = (JSON.parse(body) as { reference?: string }).reference;
        if (sent !== undefined) setReference(sent);
        // The next order gets its own reference and key; the one just sent stays for a lookup.
        setBody(exampleBody(props.spec));
        setKey(fresh());
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <form class="card try-it" aria-labelledby="try-it" onSubmit={(e) => (e.preventDefault(), void send())}>
      <h2 id="try-it">Try it</h2>
      <label>
        Operation
        <select value={operation} onChange={(e) => setOperation(Number((e.target as HTMLSelectElement).value))}>
          {OPERATIONS.map((o, i) => (
            <option key={o.label} value={i}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Customer token
        <select value={token} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
          {tokens.map(({ customer, token: t }) => (
            <option key={t} value={t}>
              {customer.name} ({customer.id}): {mask(t)}
            </option>
          ))}
        </select>
      </label>
      {op.path.includes("{reference}") && (
        <label>
          Reference
          <input value={reference} onInput={(e) => setReference((e.target as HTMLInputElement).value)} />
        </label>
      )}
      {op.method === "POST" && (
        <>
          <label>
            Idempotency-Key
            <input class="uuid" size={36} value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            Body (JSON)
            <textarea rows={8} value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
          </label>
        </>
      )}
      <button type="submit">Send</button>
      {error !== undefined && <p role="alert">{error}</p>}
      {answer !== undefined && (
        <div data-testid="try-it-answer">
          <p>
            Status: <strong data-testid="try-it-status">{answer.status}</strong>
          </p>
          <pre>{answer.headers}</pre>
          <pre data-testid="try-it-body">{answer.body}</pre>
        </div>
      )}
    </form>
  );
}
