/**
 * Prints a fresh access token of the foreign provider, as a CI pipeline's
 * token command would: `node print-token.mjs BASE_URL CLIENT_ID CLIENT_SECRET`.
 * OAuth 2.0 client credentials (RFC 6749 §4.4) with HTTP Basic.
 *
 * Plain JavaScript, so plain `node` runs it: a TypeScript loader would cost
 * each contract run's token command half a second of CPU more, and five runs
 * side by side start one each.
 */

/**
 * @param {string} baseUrl
 * @param {string} clientId
 * @param {string} clientSecret
 * @returns {Promise<string>}
 */
async function fetchToken(baseUrl, clientId, clientSecret) {
  const basic = Buffer.from(`${clientId}:${clientSecret}`).toString("base64");
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const body = await response.json();
  if (!response.ok || typeof body.access_token !== "string") {
    throw new Error(`POST /oauth/token answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

const [baseUrl, clientId, clientSecret] = process.argv.slice(2);
if (baseUrl === undefined || clientId === undefined || clientSecret === undefined) {
  process.stderr.write("usage: print-token.mjs BASE_URL CLIENT_ID CLIENT_SECRET\n");
  process.exitCode = 2;
} else {
  try {
    process.stdout.write(`${await fetchToken(baseUrl, clientId, clientSecret)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
