import { expect, test } from "vitest";
import { redactUrl } from "../../src/http/request-context.ts";

test.each([
  ["/v1/balance?access_token=abc123", "/v1/balance?access_token=REDACTED"],
  ["/v1/airtime/r1?x=1&api_key=k&Token=t&page=2", "/v1/airtime/r1?x=1&api_key=REDACTED&Token=REDACTED&page=2"],
  ["/v1/balance?client%5Fsecret=s", "/v1/balance?client%5Fsecret=REDACTED"],
  ["/v1/balance?password", "/v1/balance?password=REDACTED"],
])("a credential in the query is redacted: %s", (url, redacted) => {
  expect(redactUrl(url)).toBe(redacted);
});

test("a URL without a credential is kept as it is", () => {
  for (const url of ["/v1/airtime", "/_sim/journal?customer=demo&limit=5", "/v1/airtime/a%ZZ?q=%E0"]) {
    expect(redactUrl(url)).toBe(url);
  }
});
