/**
 * podman, as the container tests drive it: every call with this folder's
 * containers.conf (runc, explicit ulimits), so nothing on the machine's own
 * podman settings is changed or needed.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

const CONTAINERS_CONF = resolve(import.meta.dirname, "containers.conf");
export const podmanEnv = { ...process.env, CONTAINERS_CONF };

/** `podman <args>`; its stdout, trimmed. Rejects with podman's stderr on a non-zero exit. */
export async function podman(args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run("podman", [...args], {
    env: podmanEnv,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/** `podman <args>` to its end, never rejecting: its exit code and its output. */
export async function podmanResult(
  args: readonly string[],
  timeoutMs = 300_000,
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("podman", [...args], {
      env: podmanEnv,
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      output: `${failed.stdout ?? ""}${failed.stderr ?? ""}`,
    };
  }
}
