/**
 * Input rules on both APIs: every string well-formed Unicode, one charset
 * rule for JSON bodies, and tokens in query strings kept out of the journal,
 * the request log and problem details.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { JournalRecord } from "../../src/http/journal.ts";
import type { Simulator } from "../../src/index.ts";
import { admin, balanceOf, bearer, DEMO_TOKEN, expectProblem, send, startSimulator } from "../support/http.ts";

let sim: Simulator;
const logged: JournalRecord[] = [];
beforeAll(async () => {
  sim = await startSimulator({ onRequest: (record) => logged.push(record) });
});
afterAll(() => sim.close());

/** A send-airtime body as raw JSON text, so that a field can hold a JSON escape such as `\ud800`. */
function rawOrder(fields: Record<string, string>): string {
  const base: Record<string, string> = { account: '"0712345678"', amount: "100", currency: '"KES"' };
  const all = { ...base, ...fields };
  return `{${Object.entries(all)
    .map(([name, json]) => `"${name}":${json}`)
    .join(",")}}`;
}

function postRaw(raw: string, contentType = "application/json") {
  return send(sim, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(DEMO_TOKEN), "content-type": contentType },
    raw,
  });
}

describe("well-formed Unicode", () => {
  test("a reference holding a lone surrogate: 400 validation_failed at #/reference, nothing debited or stored", async () => {
    const before = await balanceOf(sim);
    const reply = await postRaw(rawOrder({ reference: '"\\ud800x"' }));
    expectProblem(reply, 400, "validation_failed");
    expect(reply.body.errors).toContainEqual({
      pointer: "#/reference",
      detail: "must be well-formed Unicode (no lone surrogate)",
    });
    expect(await balanceOf(sim)).toBe(before);
    expect((await admin(sim, "/orders")).body.orders).toEqual([]);
  });

  test("a lone low surrogate in name, phone or shortcode is refused with its own pointer", async () => {
    for (const field of ["name", "phone", "shortcode"]) {
      const reply = await postRaw(rawOrder({ reference: `"lone-${field}"`, [field]: '"a\\udc00"' }));
      expectProblem(reply, 400, "validation_failed");
      expect(reply.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(`#/${field}`);
    }
  });

  test("a surrogate pair (an emoji) is well-formed and accepted", async () => {
    const reply = await postRaw(rawOrder({ reference: '"emoji-\\ud83d\\ude00"' }));
    expect(reply.status).toBe(200);
    expect(reply.body.reference).toBe("emoji-😀");
  });

  test("admin strings too: a customer name with a lone surrogate is refused", async () => {
    const reply = await send(sim, "/_sim/customers", {
      method: "POST",
      headers: { ...bearer(sim.adminToken), "content-type": "application/json" },
      raw: '{"id":"lone","name":"x\\ud800"}',
    });
    expectProblem(reply, 400, "validation_failed");
    expect(reply.text).toContain("#/name");
    expect((await admin(sim, "/customers/lone")).status).toBe(404);
  });
});

describe("one charset rule for JSON bodies", () => {
  test.each(["application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8"])(
    "%s is accepted",
    async (contentType) => {
      const reply = await postRaw(
        rawOrder({ reference: `"charset-${contentType.length}-${Date.now()}"` }),
        contentType,
      );
      expect(reply.status).toBe(200);
    },
  );

  test.each(["utf-16", "UTF-16LE", "utf-32", "latin1", "iso-8859-1"])(
    "charset=%s: 415 unsupported_media_type saying UTF-8, on the public API",
    async (charset) => {
      const reply = await postRaw(rawOrder({ reference: '"charset-refused"' }), `application/json; charset=${charset}`);
      expectProblem(reply, 415, "unsupported_media_type");
      expect(reply.body.detail).toContain("UTF-8");
      expect(reply.body.detail).toContain(charset);
    },
  );

  test("the same rule on the admin API", async () => {
    const headers = { ...bearer(sim.adminToken), "content-type": "application/json; charset=utf-16" };
    const reply = await send(sim, "/_sim/customers", { method: "POST", headers, raw: '{"id":"utf16"}' });
    expectProblem(reply, 415, "unsupported_media_type");
    const ok = await send(sim, "/_sim/customers", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json; charset=UTF-8" },
      raw: '{"id":"utf8"}',
    });
    expect(ok.status).toBe(201);
  });
});

describe("tokens in query strings", () => {
  const SECRET = "qs-secret-token-0001";

  test("are redacted in the journal and the request log, and never echoed in a problem", async () => {
    const answered = await send(sim, `/v1/balance?access_token=${SECRET}`, { headers: bearer(DEMO_TOKEN) });
    expect(answered.status).toBe(200);
    const missing = await send(sim, `/v1/nowhere?api_key=${SECRET}&x=1`, { headers: bearer(DEMO_TOKEN) });
    expectProblem(missing, 404, "not_found");
    const refused = await send(sim, `/v1/balance?token=${SECRET}`);
    expectProblem(refused, 401, "missing_token");
    const adminMissing = await send(sim, `/_sim/nowhere?access_token=${SECRET}`, {
      headers: bearer(sim.adminToken),
    });
    expectProblem(adminMissing, 404, "not_found");

    for (const reply of [missing, refused, adminMissing]) expect(reply.text).not.toContain(SECRET);
    const journal = JSON.stringify((await admin(sim, "/journal")).body);
    expect(journal).toContain("access_token=REDACTED");
    expect(journal).not.toContain(SECRET);
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    expect(logged.map((r) => r.path)).toContain("/v1/nowhere?api_key=REDACTED&x=1");
  });
});
