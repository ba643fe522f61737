/**
 * Every run time the docs quote for our own commands, measured on this
 * machine in one command: the CLI in child processes as a user starts it
 * (through `timed-cli.ts`), then the longer timing scripts the guides name,
 * their output as they print it. Each figure comes with the machine's load
 * average as it ended (a busy machine stretches them); nothing is asserted
 * (speed is measured, never a test's verdict).
 *
 *   npx tsx scripts/doc-figures.ts [--only NAME]
 *
 * NAME picks the figures whose name contains it: handler-check, compare,
 * contract-timing, time-profile-init, time-foreign-run.
 */
import { createServer, request as httpRequest } from "node:http";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, type RunningProcess, startProcess } from "../src/harness/child-process.ts";
import { generateWebhookSecret } from "../src/webhooks/signing.ts";
import { ROOT, timeCli, type TimedCli } from "./timed-cli.ts";

const CLI = ["--import", "tsx", join(ROOT, "src/cli/main.ts")];

/** A child once it printed `ready`; stopped if it never does. */
async function started(child: RunningProcess, ready: RegExp): Promise<RunningProcess> {
  const wait = await child.waitFor(ready, 30_000);
  if (wait.kind === "matched") return child;
  await child.stop();
  throw new Error(`did not start (${wait.kind}): ${child.output()}`);
}

/** A proxy that holds every request `delayMs` before passing it on: a handler that takes that long to answer. */
async function slowFront(targetPort: number, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((incoming, answer) => {
    setTimeout(() => {
      const forwarded = httpRequest(
        { port: targetPort, host: "127.0.0.1", path: incoming.url, method: incoming.method, headers: incoming.headers },
        (reply) => {
          answer.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(answer);
        },
      );
      forwarded.on("error", () => answer.writeHead(502).end());
      incoming.pipe(forwarded);
    }, delayMs);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The guide's default `handler-check` (50 runs) against the Express example, each answer `delayMs` late. */
async function timeHandlerCheck(delayMs: number): Promise<TimedCli> {
  const secret = generateWebhookSecret();
  const port = await freePort();
  const example = await started(
    startProcess(process.execPath, [join(ROOT, "examples/express-handler/express-server.js")], {
      env: { ...process.env, PORT: String(port), AIRTIME_WEBHOOK_SECRET: secret },
    }),
    /listening on/,
  );
  const front = delayMs === 0 ? undefined : await slowFront(port, delayMs);
  const base = `http://127.0.0.1:${front?.port ?? port}`;
  try {
    return await timeCli([
      ...["handler-check", "--handler", `${base}/webhooks/airtime`, "--secret", secret],
      ...["--state", `${base}/orders/{reference}`, "--state-status", "/status", "--effects", "/applied"],
    ]);
  } finally {
    await front?.close();
    await example.stop();
  }
}

/** The guide's default `compare` (20 runs, seed 42) against `serve` with finals of at most 1 s. */
async function timeCompare(): Promise<TimedCli> {
  const token = "figures-demo-token";
  const timing = "quantiles:p50=400ms,p95=900ms,max=1s";
  const serve = await started(
    startProcess(process.execPath, [...CLI, "serve", "--port", "0", "--demo-token", token, "--timing", timing]),
    /listening on (http:\/\/\S+)/,
  );
  const url = /listening on (http:\/\/\S+)/.exec(serve.output())?.[1] ?? "";
  try {
    return await timeCli(["compare", "--target", url, "--token", token, "--seed", "42"]);
  } finally {
    await serve.stop();
  }
}

/** One of the longer timing scripts, its output as printed. */
function timeScript(name: string): () => Promise<TimedCli> {
  return () => timeCli([join(ROOT, "scripts", `${name}.ts`)], { script: true });
}

const FIGURES: ReadonlyArray<{ name: string; run: () => Promise<TimedCli> }> = [
  { name: "handler-check, Express example, 50 runs", run: () => timeHandlerCheck(0) },
  { name: "handler-check, Express example, 50 runs, answers 10 ms late", run: () => timeHandlerCheck(10) },
  { name: "compare, 20 runs, seed 42, against serve (finals <= 1 s)", run: timeCompare },
  { name: "time-profile-init (profile init --from-target)", run: timeScript("time-profile-init") },
  { name: "time-foreign-run (contract against the foreign provider)", run: timeScript("time-foreign-run") },
  { name: "contract-timing (contract against serve on a real clock)", run: timeScript("contract-timing") },
];

const FROM_SCRIPT = /^(time-|contract-timing)/;
const { values } = parseArgs({ options: { only: { type: "string" } } });
console.log(`${cpus().length} cores, load ${(loadavg()[0] ?? 0).toFixed(1)} at the start`);
for (const figure of FIGURES.filter((f) => values.only === undefined || f.name.includes(values.only as string))) {
  const timed = await figure.run();
  const load = `load ${(loadavg()[0] ?? 0).toFixed(1)}`;
  console.log(`${figure.name}: ${(timed.wallMs / 1000).toFixed(1)} s, exit ${String(timed.exitCode)}, ${load}`);
  // A script's own figures come before its first blank line; a failure shows everything.
  const shown =
    timed.exitCode === 0 ? (FROM_SCRIPT.test(figure.name) ? timed.output.split("\n\n")[0] : "") : timed.output;
  if (shown !== undefined && shown.trim() !== "") console.log(shown.trimEnd().replace(/^/gm, "  | "));
}
