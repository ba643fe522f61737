/**
 * Independent validation: `prism proxy <spec> <target> --errors` between the
 * harness and the target. Prism checks every request and response against
 * the OpenAPI document; with --errors a response that breaks it becomes a 422
 * carrying the violations (also in the `sl-violations` header), which the
 * harness reports as `response_schema_conformance` failures.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { dialectOpenApiDocument } from "../contract/openapi/dialect-document.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { PACKAGE_ROOT } from "../package-root.ts";
import { HarnessError } from "./checker.ts";
import { freePort, startProcess } from "./child-process.ts";

export interface PrismProxy {
  readonly url: string;
  close(): Promise<void>;
}

export interface PrismOptions {
  /** The upstream (the target's base URL). */
  readonly upstream: string;
  /**
   * The dialect the target speaks: Prism validates against its document, the
   * one `spec --provider` writes; without one, this package's `spec/openapi.yaml`.
   */
  readonly provider?: ProviderProfile | undefined;
  /** Where to look for `node_modules/.bin/prism` when the package's own copy of Prism is not there. */
  readonly cwd: string;
}

const PRISM_MISSING =
  "--validate-with-prism needs Prism, an optional peer dependency: npm install --save-dev @stoplight/prism-cli@5";

/**
 * Prism's command as module resolution finds it from this file: beside the
 * package in the user's node_modules wherever the command is run from.
 */
function resolvePrism(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json");
    const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: { prism: string } };
    return resolve(dirname(manifest), bin.prism);
  } catch {
    return undefined;
  }
}

/**
 * The document Prism validates against: a dialect's (written to a folder of
 * its own, removed on close), or our spec's.
 */
async function documentFor(options: PrismOptions): Promise<{ file: string; remove(): Promise<void> }> {
  if (options.provider === undefined)
    return { file: resolve(PACKAGE_ROOT, "spec/openapi.yaml"), remove: async () => {} };
  const folder = await mkdtemp(join(tmpdir(), "airtime-harness-prism-"));
  const file = join(folder, "openapi.json");
  await writeFile(file, JSON.stringify(dialectOpenApiDocument(options.provider)), "utf8");
  return { file, remove: () => rm(folder, { recursive: true, force: true }) };
}

export async function startPrism(options: PrismOptions): Promise<PrismProxy> {
  const command = [resolvePrism(), resolve(options.cwd, "node_modules/.bin/prism")].find(
    (candidate) => candidate !== undefined && existsSync(candidate),
  );
  if (command === undefined) throw new HarnessError(PRISM_MISSING);
  const document = await documentFor(options);
  if (!existsSync(document.file)) throw new HarnessError(`--validate-with-prism: ${document.file} not found`);
  const prism = await startPrismProcess(command, ["proxy", document.file, options.upstream, "--errors"]).catch(
    async (error: unknown) => {
      await document.remove();
      throw error;
    },
  );
  return {
    url: prism.url,
    close: async () => {
      await prism.close();
      await document.remove();
    },
  };
}

export interface PrismProcess extends PrismProxy {
  readonly pid: number | undefined;
  /** What Prism has logged so far. */
  output(): string;
}

/**
 * Starts `<command> <args> -p <free port> -h 127.0.0.1` (Prism's `proxy` or
 * `mock`) and resolves once Prism logs that it is listening.
 *
 * @example
 * const mock = await startPrismProcess("node_modules/.bin/prism", ["mock", "spec/openapi.yaml"]);
 * await fetch(`${mock.url}/v1/balance`, { headers: { authorization: "Bearer any" } });
 * await mock.close();
 */
export async function startPrismProcess(
  command: string,
  args: readonly string[],
  { startTimeoutMs = 60_000 }: { readonly startTimeoutMs?: number } = {},
): Promise<PrismProcess> {
  const port = await freePort();
  const prism = startProcess(command, [...args, "-p", String(port), "-h", "127.0.0.1"], { cwd: PACKAGE_ROOT });
  const started = await prism.waitFor(/listening on/i, startTimeoutMs);
  switch (started.kind) {
    case "matched":
      return { url: `http://127.0.0.1:${port}`, pid: prism.child.pid, output: prism.output, close: () => prism.stop() };
    case "exited":
      throw new HarnessError(`Prism exited with ${started.code} before listening:\n${prism.output().slice(-2000)}`);
    case "timed_out":
      prism.child.kill();
      throw new HarnessError(`Prism did not start within ${startTimeoutMs} ms:\n${prism.output().slice(-2000)}`);
  }
}
