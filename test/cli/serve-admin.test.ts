/**
 * `serve` and the admin API: `--no-admin`, and a non-loopback bind that
 * needs an admin token of one's own (or no admin API) and says it is exposed.
 */
import { afterEach, describe, expect, test } from "vitest";
import { isLoopback, parseServeArgs } from "../../src/cli/serve.ts";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { startServe } from "../support/processes.ts";

const running: RunningProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop(1_000);
});

describe("binding beyond loopback", () => {
  test.each([["0.0.0.0"], ["::"], ["192.0.2.10"]])(
    "--host %s without --admin-token or --no-admin is refused, naming both",
    async (host) => {
      const parsed = await parseServeArgs(["--host", host], {});
      expect(parsed.kind).toBe("error");
      const message = parsed.kind === "error" ? parsed.message : "";
      expect(message).toContain(`--host ${host}`);
      expect(message).toContain("--admin-token");
      expect(message).toContain("--no-admin");
    },
  );

  test("an admin token given by the environment or --no-admin lets it bind", async () => {
    const withToken = await parseServeArgs(["--host", "0.0.0.0"], {
      AIRTIME_SIM_ADMIN_TOKEN: "admin-token-exposed-01",
    });
    expect(withToken.kind).toBe("settings");
    const withoutAdmin = await parseServeArgs(["--host", "0.0.0.0", "--no-admin"], {});
    expect(withoutAdmin.kind === "settings" && withoutAdmin.settings.options.admin).toBe(false);
  });

  test("loopback hosts need nothing more", async () => {
    for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"]) expect(isLoopback(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com"]) expect(isLoopback(host)).toBe(false);
    expect((await parseServeArgs(["--host", "localhost"], {})).kind).toBe("settings");
  });

  test("--admin-token shorter than 16 characters exits 2 naming the flag", async () => {
    const parsed = await parseServeArgs(["--admin-token", "fifteen-chars-x"], {});
    expect(parsed).toEqual({ kind: "error", message: "--admin-token must be 16–256 visible ASCII characters" });
  });
});

test("serve --host 0.0.0.0 --no-admin warns it is exposed, says admin is off, and /_sim is 404", async () => {
  const { server, url } = await startServe(["--host", "0.0.0.0", "--no-admin"]);
  running.push(server);
  expect(server.output()).toContain("warning: bound to 0.0.0.0, reachable from the network (admin API off)");
  expect(server.output()).toContain("admin API: off (--no-admin)");
  expect(server.output()).not.toContain("admin token:");
  const port = new URL(url).port;
  const reply = await fetch(`http://127.0.0.1:${port}/_sim/clock`);
  expect(reply.status).toBe(404);
  expect(await reply.json()).toMatchObject({ code: "not_found" });
}, 30_000);
