/**
 * `airtime-harness init`: a new project's starting point in the working
 * directory, a commented `airtime-harness.config.yaml` (which `serve` then
 * finds on its own) and one example scenario it loads. Nothing is
 * overwritten: if either file exists, nothing is written.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CONFIG_FILE_NAMES } from "./config-discovery.ts";
import { helpOrNoArguments } from "./flag-table.ts";

const USAGE = `usage: airtime-harness init

Writes, in the working directory, a commented airtime-harness.config.yaml
(serve reads it from there without --config) and scenarios/example.yaml, an
example failure scenario the config loads. Refuses to overwrite either.

options:
  -h, --help   this text`;

const CONFIG = `# yaml-language-server: $schema=https://unpkg.com/airtime-harness/spec/config.schema.json
#
# The airtime simulator's settings. \`airtime-harness serve\` reads this file
# from the working directory; flags and AIRTIME_SIM_* variables override it.
# Every key is optional; docs/configuration.md in the package lists them all.

port: 4010                  # 0: any free port
clock: real                 # virtual: time moves only when told (POST /_sim/clock/advance)
timing: 1s..3s              # how long an order stays 0 Pending before its final status

demo:                       # the demo customer, seeded at start
  token: demo-token-123     # its bearer token (generated and printed when absent)
  balance: 100000           # KES
  # webhook:                # where its status webhooks go
  #   url: http://127.0.0.1:4020/webhooks
  #   secrets: [whsec_…]   # airtime-harness secret prints one; generated when absent

# adminToken: admin-token-123456   # for /_sim/… and the dashboard; generated when absent
# stateFile: .airtime-state.json   # keep balances and orders across restarts

scenarios:
  # Loaded, not active: send X-Sim-Scenario: example on a request to use it,
  # or move it to \`active\` to apply it to every order.
  load: [scenarios/example.yaml]
`;

const SCENARIO = `# yaml-language-server: $schema=https://unpkg.com/airtime-harness/spec/scenario.schema.json
#
# An example failure scenario: the gateway answers 503 with Retry-After on
# the first attempt of an order, and the retry goes through. Your client
# should wait as told and retry with the SAME idempotency key.
# docs/scenarios.md in the package lists every match and effect.
name: example
description: The first attempt of an order gets 503 with Retry-After 1; the retry succeeds.
rules:
  - name: first-attempt-unavailable
    match: { attempt: 1 }
    effects:
      httpError: { status: 503, retryAfter: 1, when: before_commit }
`;

const FILES: readonly (readonly [string, string])[] = [
  [CONFIG_FILE_NAMES[0], CONFIG],
  ["scenarios/example.yaml", SCENARIO],
];

export async function init(args: string[], cwd: string = process.cwd()): Promise<number> {
  const ended = helpOrNoArguments("init", USAGE, args);
  if (ended !== undefined) return ended;
  const taken = [...FILES.map(([name]) => name), CONFIG_FILE_NAMES[1]].filter((name) => existsSync(join(cwd, name)));
  if (taken.length > 0) {
    console.error(`airtime-harness init: ${taken.join(", ")} exists; nothing written (move it away to start afresh)`);
    return 2;
  }
  for (const [name, text] of FILES) {
    await mkdir(dirname(join(cwd, name)), { recursive: true });
    await writeFile(join(cwd, name), text, { flag: "wx" });
    console.log(`wrote ${name}`);
  }
  console.log("\nnext: airtime-harness serve   (reads the config from here)");
  return 0;
}
