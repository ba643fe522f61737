/**
 * Prints a fresh access token of the foreign provider, as a CI pipeline's
 * token command would: `tsx print-token.ts BASE_URL CLIENT_ID CLIENT_SECRET`.
 * OAuth 2.0 client credentials (RFC 6749 §4.4) with HTTP Basic.
 */
import { pathToFileURL } from "node:url";

export async function fetchToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const basic = Buffer.from(`${clientId}:${clientSecret}`).toString("base64");
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const body = (await response.json()) as { access_token?: unknown };
  if (!response.ok || typeof body.access_token !== "string") {
    throw new Error(`POST /oauth/token answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

async function main(args: readonly string[]): Promise<number> {
  const [baseUrl, clientId, clientSecret] = args;
  if (baseUrl === undefined || clientId === undefined || clientSecret === undefined) {
    process.stderr.write("usage: print-token.ts BASE_URL CLIENT_ID CLIENT_SECRET\n");
    return 2;
  }
  try {
    process.stdout.write(`${await fetchToken(baseUrl, clientId, clientSecret)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
