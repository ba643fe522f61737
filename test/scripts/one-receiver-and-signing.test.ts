/**
 * One signing module, one webhook receiver and one HTTP client, read off
 * the source: the crypto that signs or compares secrets appears in one
 * file, only one file both verifies webhook requests and dedupes them on
 * their delivery id, and the verification commands send requests to a
 * target through one client. Each rule is also run over the source with a
 * second copy planted, to show it would catch one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

type Sources = ReadonlyMap<string, string>;

function readSources(root: string): Sources {
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
  return new Map(files.map((file) => [join(root, file), readFileSync(join(root, file), "utf8")]));
}

const SIGNING_PRIMITIVES = /\btimingSafeEqual\b|\bcreateHmac\b|from "standardwebhooks"/;
const VERIFIES = /\b(?:verifyWebhook|verifyDialect|standardWebhookRejection)\(|\.verifier\(|\bverifier\.verify\(/;
const DEDUPES_ON_ID = /\.has\((?:id|webhookId|deliveryId|messageId)\)/;
const SERVES_HTTP = /\bcreateWebhookServer\(|\bcreateServer\(/;

/** `fetch`, undici, or `request` from node:http/https: a file that sends HTTP requests itself. */
const SENDS_HTTP = /\bfetch\(|from "undici"|import\s*\{[^}]*\brequest\b[^}]*\}\s*from "node:https?"/;
/** The verification commands: contract, compare, handler-check, the learn probe and the CLI around them. */
const VERIFICATION_FOLDERS = ["src/harness/", "src/compare/", "src/handler-check/", "src/learn/", "src/cli/"];

const matching = (sources: Sources, ...patterns: RegExp[]) =>
  [...sources].filter(([, text]) => patterns.every((pattern) => pattern.test(text))).map(([file]) => file);

/** Files that sign, verify or compare secrets with the crypto primitives themselves. */
const signingModules = (sources: Sources) => matching(sources, SIGNING_PRIMITIVES);
/** Files that verify webhook requests and keep the delivery ids they have seen: receivers. */
const receivers = (sources: Sources) => matching(sources, VERIFIES, DEDUPES_ON_ID);
/** Files that verify what their own HTTP server receives. */
const verifyingServers = (sources: Sources) => matching(sources, VERIFIES, SERVES_HTTP);

/** Files of the verification commands that send HTTP requests without the one client. */
const httpClients = (sources: Sources) => {
  // An @example that calls fetch sends nothing.
  const code = new Map([...sources].map(([file, text]) => [file, text.replace(/\/\*[\s\S]*?\*\//g, "")]));
  return matching(code, SENDS_HTTP).filter((file) => VERIFICATION_FOLDERS.some((folder) => file.startsWith(folder)));
};

const planted = (sources: Sources, file: string, text: string): Sources => new Map([...sources, [file, text]]);

const src = readSources("src");

describe("one signing module", () => {
  it("is the only file using timingSafeEqual, createHmac or the standardwebhooks package", () => {
    expect(signingModules(src)).toEqual(["src/contract/signing.ts"]);
  });

  it("would name a second constant-time compare or HMAC signer", () => {
    const compare = `import { timingSafeEqual } from "node:crypto";\nexport const same = timingSafeEqual;\n`;
    expect(signingModules(planted(src, "src/http/planted.ts", compare))).toContain("src/http/planted.ts");
    const signer = `import { Webhook } from "standardwebhooks";\nexport const sign = (s: string) => new Webhook(s);\n`;
    expect(signingModules(planted(src, "src/cli/planted.ts", signer))).toContain("src/cli/planted.ts");
  });
});

describe("one webhook receiver", () => {
  it("is the inbox: the only file that verifies requests and dedupes them on their delivery id", () => {
    expect(receivers(src)).toEqual(["src/webhooks/inbox.ts"]);
  });

  it("leaves a verifying HTTP server only to the inbox and the forwarder, which keeps no ids", () => {
    expect(verifyingServers(src).sort()).toEqual(["src/webhooks/forwarder.ts", "src/webhooks/inbox.ts"]);
  });

  it("would name a second receiver that verifies and dedupes", () => {
    const receiver = [
      "const seen = new Set<string>();",
      "const server = createWebhookServer({}, (req, res, bytes) => {",
      "  const outcome = provider.verifier(secret).verify(bytes.toString(), headers);",
      "  const webhookId = provider.deliveryId(headers, payload);",
      "  if (seen.has(webhookId)) return;",
      "});",
    ].join("\n");
    const withCopy = planted(src, "src/harness/planted-receiver.ts", receiver);
    expect(receivers(withCopy)).toContain("src/harness/planted-receiver.ts");
    expect(verifyingServers(withCopy)).toContain("src/harness/planted-receiver.ts");
  });
});

describe("one HTTP client", () => {
  it("is the harness's client, with the fault proxy that relays to the target", () => {
    expect(httpClients(src).sort()).toEqual(["src/harness/fault-proxy.ts", "src/harness/http-client.ts"]);
  });

  it("would name a second client in any verification command", () => {
    const viaFetch = `export const get = (url: string) => fetch(url);\n`;
    expect(httpClients(planted(src, "src/compare/planted.ts", viaFetch))).toContain("src/compare/planted.ts");
    const viaNode = `import { request } from "node:https";\nexport const post = (url: string) => request(url);\n`;
    expect(httpClients(planted(src, "src/handler-check/planted.ts", viaNode))).toContain(
      "src/handler-check/planted.ts",
    );
    const viaUndici = `import { request } from "undici";\nexport const get = (url: string) => request(url);\n`;
    expect(httpClients(planted(src, "src/learn/planted.ts", viaUndici))).toContain("src/learn/planted.ts");
  });
});
