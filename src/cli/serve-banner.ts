/**
 * What `serve` prints once it listens: where it is, the tokens, the
 * dashboard, where the demo customer's webhooks go and with which secret,
 * where its state and config came from, and a `curl` line that places an
 * order. Every value a newcomer needs next is on screen, none generated
 * silently.
 */
import { DASHBOARD_PLUGIN_NAME, dashboardLink } from "../dashboard/dashboard-plugin.ts";
import type { Simulator } from "../simulator/create-simulator.ts";

/** What the banner says beyond the simulator itself: where things came from. */
export interface BannerFacts {
  /** The demo customer's webhook endpoint, and whether its secret was generated at this start. */
  readonly webhook?: { readonly url: string; readonly secrets: readonly string[]; readonly generated: boolean };
  /** The state file, and whether this start loaded it (false: none yet, written on shutdown). */
  readonly stateFile?: { readonly file: string; readonly loaded: boolean };
  /** The config file, and whether it was found in the working directory rather than named. */
  readonly config?: { readonly file: string; readonly discovered: boolean };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function originLines(facts: BannerFacts): string[] {
  const lines: string[] = [];
  if (facts.config !== undefined) {
    const how = facts.config.discovered ? " (found in the working directory)" : "";
    lines.push(`  config: ${facts.config.file}${how}`);
  }
  if (facts.stateFile !== undefined) {
    const { file, loaded } = facts.stateFile;
    lines.push(
      loaded
        ? `  state: loaded from ${file} (saved there again on shutdown)`
        : `  state: none in ${file} yet (saved there on shutdown)`,
    );
  }
  if (facts.webhook !== undefined) {
    const { url, secrets, generated } = facts.webhook;
    lines.push(`  webhooks: ${url}, signed with ${secrets.join(", ")}`);
    if (generated)
      lines.push("    (secret generated for this run: give it to your handler, or fix one with --webhook-secret)");
  }
  return lines;
}

/** Loopback names and addresses: a simulator bound there is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(bare);
}

export function startBanner(
  sim: Simulator,
  settings: { readonly host: string; readonly admin: boolean },
  facts: BannerFacts = {},
): string {
  const lines = [`airtime simulator listening on ${sim.url} (clock: ${sim.clock.mode})`];
  if (!isLoopback(settings.host)) {
    lines.push(
      `  warning: bound to ${settings.host}, reachable from the network (admin API ${settings.admin ? "on" : "off"})`,
    );
  }
  lines.push(settings.admin ? `  admin token: ${sim.adminToken}` : "  admin API: off (--no-admin)");
  if (settings.admin && sim.plugins.some((p) => p.name === DASHBOARD_PLUGIN_NAME)) {
    lines.push(`  dashboard: ${dashboardLink(sim.url, sim.adminToken)}`);
  }
  lines.push(...originLines(facts));
  if (sim.demo === undefined) {
    lines.push("  no demo customer (see GET /_sim/customers)");
    return lines.join("\n");
  }
  const body = JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference: "demo-order-1" });
  lines.push(
    `  demo customer: ${sim.demo.customerId}, token: ${sim.demo.token}`,
    "",
    "Place an order:",
    `  curl -sS -X POST ${sim.url}/v1/airtime \\`,
    `    -H ${shellQuote(`Authorization: Bearer ${sim.demo.token}`)} \\`,
    "    -H 'Content-Type: application/json' -H 'Idempotency-Key: demo-key-1' \\",
    `    -d ${shellQuote(body)}`,
  );
  return lines.join("\n");
}
