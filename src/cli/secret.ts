/**
 * `airtime-harness secret`: a fresh `whsec_` signing secret on stdout, for
 * `serve --webhook-secret`, `listen --secret` and your handler alike:
 * `airtime-harness secret | airtime-harness listen --secret -`.
 */
import { generateWebhookSecret } from "../webhooks/signing.ts";

const USAGE = `usage: airtime-harness secret

Prints a fresh webhook signing secret (whsec_ and the base64 of 32 random
bytes), the form Standard Webhooks libraries take. Give the same secret to the
simulator (serve --webhook-secret) and to what verifies its webhooks (your
handler, or listen --secret; listen --secret - reads it from stdin).

options:
  -h, --help   this text`;

export async function secret(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === "-h" || args[0] === "--help")) {
    console.log(USAGE);
    return 0;
  }
  if (args.length > 0) {
    console.error(`airtime-harness secret: takes no arguments, not ${args.join(" ")}\n\n${USAGE}`);
    return 2;
  }
  console.log(generateWebhookSecret());
  return 0;
}
