/** Debian's Chromium through playwright-core, with the flags this closed network needs (no background calls). */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = () => existsSync(CHROMIUM);

/** `popupBlocking`: Chromium's own pop-up blocker on, as in a user's browser (Playwright turns it off by default). */
export function launchChromium(options: { popupBlocking?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    ...(options.popupBlocking ? { ignoreDefaultArgs: ["--disable-popup-blocking"] } : {}),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
