/**
 * Targets for `compare` tests: real simulators on port 0, set apart from the
 * reference simulator by one planted difference each, and a small proxy
 * that rewrites only ids and times, which compare must never report.
 */
import { createServer, type Server } from "node:http";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { generateWebhookSecret } from "../../src/contract/signing.ts";
import { startWebhookRecorder, type WebhookRecorder } from "../../src/compare/observe-webhooks.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";

export const TARGET_TOKEN = "compare-target-token";
/** Short, long-tailed delays, so a run settles in well under a second; the reference gets the same. */
export const REFERENCE_SETTINGS: SimulatorOptions = { timing: "lognormal:120ms,0.3", failureRate: 0.1 };

/** A proxied request and what the upstream answered it. */
interface ProxiedAnswer {
  readonly method: string;
  readonly path: string;
  readonly requestBody: string;
  readonly status: number;
  readonly body: string;
}

interface RewrittenAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export class CompareTargets {
  private readonly simulators: Simulator[] = [];
  private readonly servers: Server[] = [];
  private readonly recorders: WebhookRecorder[] = [];

  async simulator(options: SimulatorOptions = {}): Promise<string> {
    const sim = await createSimulator({
      ...REFERENCE_SETTINGS,
      demo: { token: TARGET_TOKEN, balance: 10_000_000 },
      ...options,
    });
    this.simulators.push(sim);
    return sim.listen(0);
  }

  /**
   * A simulator whose webhooks go to a receiver started first on port 0, as
   * `compare --webhook-listen` starts one for a real target.
   */
  async simulatorWithWebhooks(options: SimulatorOptions = {}): Promise<{ url: string; webhooks: WebhookRecorder }> {
    const webhooks = await startWebhookRecorder({
      profile: compileProfile(options.provider),
      secret: generateWebhookSecret(),
    });
    this.recorders.push(webhooks);
    const url = await this.simulator({
      demo: { token: TARGET_TOKEN, balance: 10_000_000, webhook: { url: webhooks.url, secrets: [webhooks.secret] } },
      ...options,
    });
    return { url, webhooks };
  }

  /** A proxy in front of `upstream` that renames every order id and moves every ISO time by an hour. */
  async renamingProxy(upstream: string): Promise<string> {
    const names = new Map<string, string>();
    const rename = (id: string) => names.get(id) ?? names.set(id, `TX${String(names.size).padStart(9, "0")}`).get(id);
    return this.rewritingProxy(upstream, (answer) => ({
      status: answer.status,
      body: answer.body
        .replace(/ord_[A-Za-z0-9]+/g, (id) => rename(id) as string)
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, (time) =>
          new Date(Date.parse(time) + 3_600_000).toISOString(),
        ),
      headers: { "x-request-id": `proxy-${Math.random().toString(36).slice(2)}` },
    }));
  }

  /** A proxy in front of `upstream` whose every answer passes through `rewrite` (the target a test plants). */
  async rewritingProxy(upstream: string, rewrite: (answer: ProxiedAnswer) => RewrittenAnswer): Promise<string> {
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !["host", "content-length", "connection"].includes(name)),
      ) as Record<string, string>;
      const answer = await fetch(`${upstream}${request.url}`, {
        method: request.method ?? "GET",
        headers,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      });
      const rewritten = rewrite({
        method: request.method ?? "GET",
        path: request.url ?? "/",
        requestBody: Buffer.concat(chunks).toString("utf8"),
        status: answer.status,
        body: await answer.text(),
      });
      response.writeHead(rewritten.status, {
        "content-type": answer.headers.get("content-type") ?? "application/json",
        ...rewritten.headers,
      });
      response.end(rewritten.body);
    });
    this.servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("the proxy has no port");
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.simulators.splice(0).map((sim) => sim.close()));
    await Promise.all(this.recorders.splice(0).map((recorder) => recorder.close()));
    await Promise.all(
      this.servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }
}
