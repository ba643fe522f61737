/**
 * Debian's Chromium, driven by playwright-core (which never downloads a
 * browser). Browser tests skip with CHROMIUM_MISSING as the reason when the
 * binary is absent — except under CI, where a missing browser must fail.
 */
import { accessSync, constants } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. */
export const CHROMIUM_MISSING: string | undefined = missingReason(CHROMIUM_PATH);

function missingReason(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${path} (apt-get install chromium, or set CHROMIUM_PATH)`;
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
