import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findWiremockJar, wiremockMappings } from "../../bench/peers.ts";

describe("WireMock's bench setup", () => {
  it("echoes the posted reference through the response-template transformer", () => {
    const { mappings } = wiremockMappings("{}", "{}") as {
      mappings: { request: { method: string }; response: { body: string; transformers?: string[] } }[];
    };
    const post = mappings.find((m) => m.request.method === "POST");
    expect(post?.response.transformers).toEqual(["response-template"]);
    expect(post?.response.body).toContain("{{jsonPath request.body '$.reference'}}");
    expect(JSON.parse(post?.response.body.replace(/\{\{[^}]*\}\}/, "x") ?? "")).toMatchObject({ reference: "x" });
  });

  it("answers both GETs with the bodies given", () => {
    const { mappings } = wiremockMappings('{"a":1}', '{"b":2}') as { mappings: { response: { body: string } }[] };
    expect(mappings.map((m) => m.response.body).slice(1)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("finds the standalone jar in the installed package, and nothing when it is absent", () => {
    const root = mkdtempSync(join(tmpdir(), "peers-"));
    expect(findWiremockJar(root)).toBeUndefined();
    const build = join(root, ".tmp/bench-peers/node_modules/wiremock/build");
    mkdirSync(build, { recursive: true });
    writeFileSync(join(build, "wiremock-standalone-3.13.2.jar"), "");
    expect(findWiremockJar(root)).toBe(join(build, "wiremock-standalone-3.13.2.jar"));
  });
});
