/**
 * Where `--forward-to` may point: http(s) only, never with credentials;
 * `localhost:3000/path` is taken as http.
 */
import { expect, it } from "vitest";
import { parseForwardTarget } from "../../src/webhooks/forward-target.ts";

it("accepts http(s) URLs and reads a bare host:port/path as http", () => {
  expect(parseForwardTarget("http://127.0.0.1:3000/webhooks")).toEqual({
    ok: true,
    url: "http://127.0.0.1:3000/webhooks",
  });
  expect(parseForwardTarget("https://hooks.example.com/airtime")).toEqual({
    ok: true,
    url: "https://hooks.example.com/airtime",
  });
  expect(parseForwardTarget("localhost:3000/webhooks")).toEqual({ ok: true, url: "http://localhost:3000/webhooks" });
});

it("refuses credentials, other schemes and text that is no URL", () => {
  for (const text of ["http://user:pass@127.0.0.1:3000/", "https://token@example.com/"]) {
    expect(parseForwardTarget(text)).toMatchObject({ ok: false, error: expect.stringContaining("credentials") });
  }
  for (const [text, scheme] of [
    ["ftp://example.com/x", "ftp"],
    ["file:///etc/passwd", "file"],
    ["javascript:alert(1)", "javascript"],
    ["data:text/plain,hi", "data"],
  ]) {
    expect(parseForwardTarget(text as string)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`'${scheme}' URLs are refused`),
    });
  }
  expect(parseForwardTarget("http://")).toMatchObject({ ok: false, error: expect.stringContaining("is not a URL") });
});
