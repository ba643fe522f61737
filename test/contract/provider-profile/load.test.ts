import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { DEFAULT_PROVIDER_PROFILE } from "../../../src/contract/provider-profile/compile.ts";
import { formatProfileIssues, parseProviderProfile } from "../../../src/contract/provider-profile/load.ts";
import { PROFILE_STARTER } from "../../../src/cli/profile.ts";
import { PASSTHROUGH_FIELDS } from "../../../src/contract/provider-profile/schema.ts";

const ACME = `profile: 1
name: Acme Airtime
bodies:
  order: { id: /data/transactionId, reference: /data/reference, status: /data/statusCode }
  lookup: { id: /data/transactionId, status: /data/status, amount: /data/amount }
money: string
statuses:
  values: word
  table:
    - { code: 0, word: PENDING, class: pending }
    - { code: 20, word: SUCCESS, class: success }
    - { code: 2, word: FAILED, class: failed }
webhooks:
  signing: { scheme: hmac, header: X-Signature, hash: sha512, encoding: base64 }
`;

describe("provider profile files", () => {
  test("a YAML profile is read with every section it gives", () => {
    const result = parseProviderProfile(ACME);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.profile.name).toBe("Acme Airtime");
    expect(result.profile.bodies?.order?.id).toBe("/data/transactionId");
    expect(result.profile.statuses?.table?.map((entry) => entry.word)).toEqual(["PENDING", "SUCCESS", "FAILED"]);
    expect(result.profile.webhooks?.signing).toMatchObject({ scheme: "hmac", hash: "sha512", encoding: "base64" });
  });

  test("a JSON profile is read the same way", () => {
    const result = parseProviderProfile(
      JSON.stringify({ profile: 1, bodies: { balance: { amount: "/data/available" } } }),
    );
    expect(result.ok && result.profile.bodies?.balance?.amount).toBe("/data/available");
  });

  test("a wrong class names the field, the allowed values and the line:col", () => {
    const text = ACME.replace("{ code: 2, word: FAILED, class: failed }", "{ code: 2, word: FAILED, class: broken }");
    const result = parseProviderProfile(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toContainEqual({
      path: "statuses.table[2].class",
      message: "expected one of pending|success|failed|reversed",
      line: 12,
      column: 39,
    });
    expect(formatProfileIssues("acme.yaml", result.issues)).toContain(
      "acme.yaml:12:39: statuses.table[2].class: expected one of pending|success|failed|reversed",
    );
  });

  test("a pointer that is not RFC 6901, an unknown field and a missing version are each named", () => {
    const result = parseProviderProfile(`name: x\nbodies:\n  order: { id: data.id }\ncolour: red\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.issues.map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["bodies.order.id", "(top level)", "profile"]));
    expect(result.issues.find((issue) => issue.path === "bodies.order.id")?.line).toBe(3);
    expect(result.issues.find((issue) => issue.path === "(top level)")?.message).toBe("unknown field colour");
  });

  test("word statuses need a word for every entry, and a table needs 0 as pending", () => {
    const result = parseProviderProfile(
      `profile: 1\nstatuses:\n  values: word\n  table:\n    - { code: 1, class: pending }\n`,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual(
      expect.arrayContaining([
        "statuses.table: must define 0 as a pending status (§3)",
        "statuses.table[0].word: required when statuses.values is word",
      ]),
    );
  });

  test("hmac over timestamp.body needs the timestamp header", () => {
    const result = parseProviderProfile(
      `profile: 1\nwebhooks:\n  signing: { scheme: hmac, header: X-Signature, signed: timestamp.body }\n`,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({
      path: "webhooks.signing.timestampHeader",
      message: "required when signed is timestamp.body",
    });
  });

  test("a transition naming neither a class, a code nor a word of the table is refused", () => {
    const result = parseProviderProfile(
      `profile: 1\nstatuses:\n  table: [{ code: 0, word: PENDING, class: pending }]\n  transitions: [[PENDING, DONE]]\n`,
    );
    expect(!result.ok && result.issues[0]?.path).toBe("statuses.transitions[0][1]");
  });

  test("a YAML syntax error is reported with its line", () => {
    const result = parseProviderProfile("profile: 1\nbodies: {\n");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.path).toBe("(syntax)");
    expect(result.issues[0]?.line).toBeGreaterThan(0);
  });

  test("profile init's starter lists every member a body can keep, commented out", () => {
    const commented = PROFILE_STARTER.split("\n").filter((line) => line.trimStart().startsWith("#"));
    for (const names of Object.values(PASSTHROUGH_FIELDS)) {
      for (const name of names) {
        expect(commented.some((line) => line.includes(`${name}: /${name}`))).toBe(true);
      }
    }
    const uncommented = PROFILE_STARTER.replaceAll(/^(\s*)# (passthrough| {2}[a-zA-Z]+: \/)/gm, "$1$2");
    const parsed = parseProviderProfile(uncommented);
    expect(parsed.ok && parsed.profile.bodies?.lookup?.passthrough?.history).toBe("/history");
  });

  test("the example of our spec is exactly the default profile", async () => {
    const text = await readFile(new URL("../../../examples/providers/airtime-harness.yaml", import.meta.url), "utf8");
    const result = parseProviderProfile(text);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    // The file also keeps every other member of our spec's bodies, each where our spec writes it.
    const file = JSON.parse(JSON.stringify(result.profile)) as Record<string, Record<string, Record<string, unknown>>>;
    for (const [kind, names] of Object.entries(PASSTHROUGH_FIELDS)) {
      const body = file.bodies?.[kind] as Record<string, unknown>;
      expect(body.passthrough).toEqual(Object.fromEntries(names.map((name) => [name, `/${name}`])));
      delete body.passthrough;
    }
    expect(file).toEqual(JSON.parse(JSON.stringify(DEFAULT_PROVIDER_PROFILE)));
  });
});
