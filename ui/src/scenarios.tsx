/** The scenario library: activate per customer or globally, and upload YAML with the loader's errors. */
import { useState } from "preact/hooks";
import { ApiError, call } from "./api.ts";
import type { ScenarioListing } from "./types.ts";
import { TableHead } from "./table-head.tsx";
import { useAction } from "./use-action.ts";
import { useData } from "./use-data.ts";

export function ScenariosView() {
  const [customer, setCustomer] = useState("");
  const [yaml, setYaml] = useState("");
  const { version, notice, act } = useAction();
  const [issues, setIssues] = useState<{ pointer: string; detail: string }[]>([]);
  const [data, error] = useData<ScenarioListing>("/_sim/scenarios", [version]);
  const run = async (what: string, request: () => Promise<unknown>) => {
    setIssues([]);
    const failure = await act(what, request);
    if (failure instanceof ApiError) setIssues(failure.problem?.errors ?? []);
  };

  const scope = customer === "" ? {} : { customer };
  const activeFor = (name: string): string[] => [
    ...(data?.active.global.includes(name) ? ["everyone"] : []),
    ...Object.entries(data?.active.customers ?? {})
      .filter(([, names]) => names.includes(name))
      .map(([id]) => id),
  ];
  return (
    <section aria-labelledby="scenarios-title">
      <h2 id="scenarios-title">Scenarios</h2>
      {error !== undefined && <p role="alert">{error}</p>}
      <label>
        Customer (blank: everyone)
        <input
          name="scenario-customer"
          value={customer}
          onInput={(e) => setCustomer((e.target as HTMLInputElement).value.trim())}
        />
      </label>
      {notice !== undefined && <p role="status">{notice}</p>}
      <table>
        <TableHead columns={["Scenario", "Description", "Active for", "Actions"]} />
        <tbody>
          {(data?.loaded ?? []).map((s) => (
            <tr key={s.name} data-scenario={s.name}>
              <th scope="row">{s.name}</th>
              <td>{s.description}</td>
              <td>{activeFor(s.name).join(", ") || "—"}</td>
              <td>
                <button
                  aria-label={`Activate ${s.name}`}
                  onClick={() =>
                    run(`Activate ${s.name}`, () => call(`/_sim/scenarios/${s.name}/activate`, { body: scope }))
                  }
                >
                  Activate
                </button>{" "}
                <button
                  aria-label={`Deactivate ${s.name}`}
                  onClick={() =>
                    run(`Deactivate ${s.name}`, () => call(`/_sim/scenarios/${s.name}/deactivate`, { body: scope }))
                  }
                >
                  Deactivate
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Upload a scenario</h3>
      <form
        onSubmit={(e) => (
          e.preventDefault(),
          void run("Upload", () => call("/_sim/scenarios", { raw: yaml, type: "application/yaml" }))
        )}
      >
        <label>
          Scenario YAML
          <textarea rows={10} value={yaml} onInput={(e) => setYaml((e.target as HTMLTextAreaElement).value)} />
        </label>
        <button type="submit">Validate and load</button>
      </form>
      {issues.length > 0 && (
        <ul role="alert" aria-label="Validation errors">
          {issues.map((i) => (
            <li key={i.pointer + i.detail}>
              <code>{i.pointer}</code> {i.detail}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
