/**
 * Shared by the tests of `profile init --from-target`: a test provider
 * posting its webhooks to a free port, and the CLI run against it with its
 * printed lines captured.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { profile } from "../../src/cli/profile.ts";
import { freePort } from "../../src/harness/child-process.ts";
import type { Dialect } from "./providers/dialect.ts";
import { startProvider, type ProviderOptions, type TestProvider } from "./providers/provider-server.ts";

export const WEBHOOK_SECRET = "learn-webhook-secret";

export interface LearnKit {
  readonly provider: TestProvider;
  readonly port: number;
  readonly dir: string;
  /** Runs `airtime-harness profile ARGS`; the lines it printed (stdout and stderr) come back. */
  cli(args: readonly string[]): Promise<{ code: number; printed: string[] }>;
  /** The `--from-target` arguments for this provider, webhooks included. */
  fromTargetArgs(): string[];
  close(): Promise<void>;
}

export async function startLearnKit(dialect: Dialect, options: ProviderOptions = {}): Promise<LearnKit> {
  const port = await freePort();
  const provider = await startProvider(dialect, {
    webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: WEBHOOK_SECRET },
    ...options,
  });
  const dir = await mkdtemp(join(tmpdir(), "learn-"));
  return {
    provider,
    port,
    dir,
    async cli(args) {
      const printed: string[] = [];
      const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
      const error = vi.spyOn(console, "error").mockImplementation((line: unknown) => void printed.push(String(line)));
      try {
        return { code: await profile([...args]), printed };
      } finally {
        log.mockRestore();
        error.mockRestore();
      }
    },
    fromTargetArgs: () => [
      "--from-target",
      provider.url,
      "--token",
      provider.tokens.primary,
      "--other-token",
      provider.tokens.other,
      "--listen",
      `127.0.0.1:${port}`,
      "--webhook-secret",
      WEBHOOK_SECRET,
    ],
    async close() {
      await provider.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
