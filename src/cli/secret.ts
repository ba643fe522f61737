/**
 * `airtime-harness secret`: a fresh `whsec_` signing secret on stdout, for
 * `serve --webhook-secret`, `listen --secret` and your handler alike:
 * `airtime-harness secret | airtime-harness listen --secret -`.
 */
import { generateWebhookSecret } from "../webhooks/signing.ts";
import { helpOrNoArguments } from "./flag-table.ts";

const USAGE = `usage: airtime-harness secret

Prints a fresh webhook signing secret (whsec_ and the base64 of 32 random
bytes), the form Standard Webhooks libraries take. Give the same secret to the
simulator (serve --webhook-secret) and to what verifies its webhooks (your
handler, or listen --secret; listen --secret - reads it from stdin).

options:
  -h, --help   this text`;

export async function secret(args: string[]): Promise<number> {
  const ended = helpOrNoArguments("secret", USAGE, args);
  if (ended !== undefined) return ended;
  console.log(generateWebhookSecret());
  return 0;
}
