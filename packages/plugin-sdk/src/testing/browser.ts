/**
 * Headless Debian chromium for browser tests of web pages (playwright-core's
 * `chromium.launch(CHROMIUM_LAUNCH_OPTIONS)`): the flags keep it off the network, which this
 * machine's closed network would otherwise refuse many times over.
 *
 * @module
 */
import { existsSync } from "node:fs";

/** Where Debian's chromium lives (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Launch options for playwright-core: Debian chromium, headless, no background networking. */
export const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: CHROMIUM_PATH,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

/**
 * True when chromium is installed. Under `CI` a missing browser is an error (the CI script
 * installs it), so a browser test is never skipped silently there.
 *
 * @throws Error under `CI` when chromium is missing.
 */
export function chromiumAvailable(): boolean {
  const found = existsSync(CHROMIUM_PATH);
  if (!found && process.env.CI) {
    throw new Error(
      `${CHROMIUM_PATH} is missing; under CI it is required (apt-get install -y chromium)`,
    );
  }
  return found;
}
