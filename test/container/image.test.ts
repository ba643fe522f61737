/**
 * The image as a user runs it: built from the Containerfile (global-setup.ts),
 * configured by environment variables and a mounted config folder, reached
 * from the host through a published port, its health check run by podman,
 * the contract harness run from a second container of the same image, and a
 * SIGTERM that writes the mounted state file, which a new container reads.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { freePort } from "../support/processes.ts";
import { podman, podmanResult } from "./podman.ts";

const image = inject("image");
const ADMIN_TOKEN = "admin-token-container-1";
const DEMO_TOKEN = "demo-token-container-1";
const CONFIG = `# read from the mounted working directory
demo: { token: ${DEMO_TOKEN}, balance: 7000 }
timing: 1s
`;

/** Runs `podman healthcheck run` (the image's HEALTHCHECK command, inside it) until it passes. */
async function healthy(container: string): Promise<void> {
  let last = { code: -1, output: "" };
  for (let attempt = 0; attempt < 120; attempt += 1) {
    last = await podmanResult(["healthcheck", "run", container]);
    if (last.code === 0) return;
    // Polling a container's health: there is no event to await from here.
    await new Promise((done) => setTimeout(done, 500));
  }
  const logs = await podmanResult(["logs", container]);
  throw new Error(`never healthy: ${last.output}\n${logs.output}`);
}

describe("the image", () => {
  const containers: string[] = [];
  let folder: string;
  let port: number;
  let url: string;

  async function start(name: string): Promise<string> {
    const id = await podman([
      "run",
      "--detach",
      "--replace",
      "--name",
      name,
      "--publish",
      `127.0.0.1:${port}:4010`,
      "--env",
      `AIRTIME_SIM_ADMIN_TOKEN=${ADMIN_TOKEN}`,
      "--env",
      "AIRTIME_SIM_STATE_FILE=/data/state.json",
      "--volume",
      `${join(folder, "config")}:/workspace:ro`,
      "--volume",
      `${join(folder, "data")}:/data`,
      image,
    ]);
    containers.push(id);
    await healthy(id);
    return id;
  }

  function call(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${DEMO_TOKEN}`, "content-type": "application/json", ...init.headers },
    });
  }

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "container-image-"));
    await mkdir(join(folder, "config"));
    await mkdir(join(folder, "data"));
    await writeFile(join(folder, "config/airtime-harness.config.yaml"), CONFIG);
    // The image runs as an unprivileged user: the state folder must be theirs to write.
    await chmod(join(folder, "data"), 0o777);
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (containers.length > 0) await podmanResult(["rm", "--force", ...containers]);
    await rm(folder, { recursive: true, force: true });
  });

  let placedId = "";

  test("serves from the host: places, replays and looks up an order, with the mounted config", async () => {
    await start("airtime-image-first");
    const order = { account: "0712345678", amount: 100, currency: "KES", reference: "container-1001" };
    const place = () =>
      call("/v1/airtime", {
        method: "POST",
        headers: { "idempotency-key": "0b6d6a44-6f40-4b5e-8f0e-2f7c2e1e9a01" },
        body: JSON.stringify(order),
      });
    const placed = await place();
    expect(placed.status).toBe(200);
    const body = (await placed.json()) as { id: string; status: number };
    expect(body).toMatchObject({ reference: "container-1001", status: 0 });
    const replayed = await place();
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replayed.json()) as { id: string }).id).toBe(body.id);
    const found = await call("/v1/airtime/container-1001");
    expect(await found.json()).toMatchObject({ id: body.id, account: "+254712345678", amount: 100 });
    // The config file's demo balance, less the one order.
    expect(await (await call("/v1/balance")).json()).toMatchObject({ amount: 6900, currency: "KES" });
    placedId = body.id;
  });

  test("runs `contract --target` from a second container against the first", async () => {
    const { code, output } = await podmanResult([
      "run",
      "--rm",
      "--network",
      "host",
      image,
      "contract",
      "--target",
      url,
      "--token",
      DEMO_TOKEN,
      "--admin-url",
      url,
      "--admin-token",
      ADMIN_TOKEN,
      "--timing",
      "1s",
      "--runs",
      "3",
      "--seed",
      "7",
    ]);
    expect(output).toMatch(/pass/i);
    expect(code, output).toBe(0);
  });

  test("exits 0 on SIGTERM within 10 s, writing the mounted state file a new container reads", async () => {
    // podman stop sends the image's STOPSIGNAL, and SIGKILL (exit 137) only after 10 s.
    await podman(["stop", "--time", "10", "airtime-image-first"], 60_000);
    expect(await podman(["inspect", "--format", "{{.State.ExitCode}}", "airtime-image-first"])).toBe("0");
    const state = await readFile(join(folder, "data/state.json"), "utf8");
    expect(state).toContain(placedId);
    await start("airtime-image-second");
    expect(await (await call("/v1/airtime/container-1001")).json()).toMatchObject({ id: placedId });
  });
});
