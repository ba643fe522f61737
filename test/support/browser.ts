/**
 * Debian's Chromium driven by playwright-core, for the browser tests. No
 * browser is ever downloaded: the system one (`/usr/bin/chromium`, or
 * `CHROMIUM_PATH`) is used, and a test without it is skipped locally but
 * fails in CI, where `.ci/run` installs it.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * Why the browser tests cannot run here, or undefined when they can. Throws
 * in CI (`CI=true`): a missing browser there is a broken machine, not a skip.
 *
 * @example
 * const skip = chromiumSkipReason();
 * describe.skipIf(skip !== undefined)("dashboard in Chromium", () => { … });
 */
export function chromiumSkipReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `no Chromium at ${CHROMIUM_PATH} (install Debian's chromium or set CHROMIUM_PATH)`;
  if (process.env.CI === "true") throw new Error(`CI needs the browser tests: ${reason}`);
  return reason;
}

/** Headless Chromium; the caller closes it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}
