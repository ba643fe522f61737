/** Customers and their wallets: balances, webhook endpoint, masked tokens. */
import { useState } from "preact/hooks";
import { call } from "./api.ts";
import type { AdminCustomer } from "./types.ts";
import { useAction } from "./use-action.ts";
import { useData } from "./use-data.ts";

export const mask = (secret: string): string => `${secret.slice(0, 4)}…${secret.slice(-2)}`;

function Secret(props: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="secret">
      <code>{mask(props.value)}</code>{" "}
      <button
        aria-label={`Copy ${props.label}`}
        onClick={() => void navigator.clipboard?.writeText(props.value).then(() => setCopied(true))}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}

function CustomerCard(props: { customer: AdminCustomer; changed: () => void }) {
  const { customer } = props;
  const wallet = customer.wallets.find((w) => w.default) ?? customer.wallets[0];
  const [amount, setAmount] = useState("");
  const [url, setUrl] = useState(customer.webhook?.url ?? "");
  const [secret, setSecret] = useState("");
  const { notice, act } = useAction();
  const patch = async (what: string, body: unknown) => {
    await act(what, () => call(`/_sim/customers/${encodeURIComponent(customer.id)}`, { method: "PATCH", body }));
    props.changed();
  };

  const balance = (value: number) => patch("Balance", { wallets: [{ shortcode: null, balance: value }] });
  const id = `c-${customer.id}`;
  return (
    <article class="card" aria-labelledby={id}>
      <h3 id={id}>
        {customer.name} <small>({customer.id})</small>
      </h3>
      <p>
        Wallets: {customer.wallets.map((w) => `${w.shortcode ?? "default"} ${w.balance} ${w.currency}`).join(" · ")}
      </p>
      <form onSubmit={(e) => e.preventDefault()}>
        <label>
          Amount (KES)
          <input inputMode="decimal" value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
        </label>
        <button type="button" onClick={() => balance(Number(amount))}>
          Set balance
        </button>
        <button type="button" onClick={() => balance((wallet?.balance ?? 0) + Number(amount))}>
          Top up
        </button>
      </form>
      <form onSubmit={(e) => e.preventDefault()}>
        <label>
          Webhook URL
          <input type="url" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Signing secret (whsec_…, blank keeps or generates one)
          <input value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
        </label>
        <button
          type="button"
          onClick={() =>
            patch("Webhook", { webhook: url === "" ? null : { url, ...(secret === "" ? {} : { secrets: [secret] }) } })
          }
        >
          Save webhook
        </button>
      </form>
      {notice !== undefined && <p role="status">{notice}</p>}
      <p>
        Tokens:{" "}
        {customer.tokens.map((t, i) => (
          <Secret key={t} label={`token ${i + 1} of ${customer.id}`} value={t} />
        ))}
      </p>
      <p>
        API key: <Secret label={`API key of ${customer.id}`} value={customer.apiKey} />
      </p>
      {customer.webhook !== null && (
        <p>
          Webhook: {customer.webhook.url} {customer.webhook.disabled ? "(disabled after 410)" : ""}, secrets:{" "}
          {customer.webhook.secrets.map((s, i) => (
            <Secret key={s} label={`webhook secret ${i + 1} of ${customer.id}`} value={s} />
          ))}
        </p>
      )}
    </article>
  );
}

export function CustomersView(props: { tick: number }) {
  const [version, setVersion] = useState(0);
  const [data, error] = useData<{ customers: AdminCustomer[] }>("/_sim/customers", [props.tick, version]);
  return (
    <section aria-labelledby="customers-title">
      <h2 id="customers-title">Customers and wallets</h2>
      {error !== undefined && <p role="alert">{error}</p>}
      {(data?.customers ?? []).map((c) => (
        <CustomerCard key={c.id} customer={c} changed={() => setVersion((v) => v + 1)} />
      ))}
    </section>
  );
}
