// The API reference page: up to date with the contract, served by the reference server at /docs, and
// rendered by a real browser with every operation's summary on it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOpenApi } from "../../lib/openapi-ajv.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { hasChromium, launchChromium } from "../../scripts/docs/browser.ts";
import { buildPage, DOCS, sri } from "../../scripts/docs/build.ts";

const doc = loadOpenApi();
const summaries = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.summary as string));
const tags = (doc.tags as Array<{ name: string }>).map((t) => t.name);
/** The summaries a tag's menu shows once it is open. */
const summariesOf = (tag: string) => Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).filter((op) => op.tags?.[0] === tag).map((op) => op.summary as string));
let server: RunningServer;
beforeAll(async () => void (server = await startServer()));
afterAll(() => server.close());

describe("API reference page", () => {
  it("docs/index.html is what `npm run docs` builds from the current contract, and its bundle matches", () => {
    const built = buildPage();
    expect(readFileSync(join(DOCS, "index.html"), "utf8") === built.html, "docs/index.html is stale: run `npm run docs`").toBe(true);
    expect(sri(join(DOCS, "redoc.standalone.js"))).toBe(built.integrity);
    expect(built.html).not.toContain("cdn.redocly.com");
  }, 60_000);

  it("is served by the reference server at /docs", async () => {
    const page = await fetch(`${server.origin}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const bundle = await fetch(`${server.origin}/docs/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
  });

  it.skipIf(!hasChromium())("renders every operation's summary in headless Chromium, with the simulation surface set apart", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${server.origin}/docs/`, { waitUntil: "networkidle" });
      // The sidebar is an accordion: open each tag as a reader would and collect what it shows.
      let text = await page.locator("body").innerText();
      for (const tag of tags) {
        await page.locator('li[data-testid="menu-item-label"]', { hasText: tag }).first().click();
        // The accordion opens as the browser gets to it (later on a loaded machine): its summaries are waited for,
        // and whatever is missing after 15 s fails below with its name.
        await page.waitForFunction((want: string[]) => want.every((s) => document.body.innerText.includes(s)), summariesOf(tag), { timeout: 15_000 }).catch(() => undefined);
        text += await page.locator("body").innerText();
      }
      for (const s of summaries) expect(text, `summary "${s}" is not on the page`).toContain(s);
      expect(text).toContain("Reference server only (not part of /v1)");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.runIf(!hasChromium())("says why the browser test was skipped", () => {
    console.warn("Chromium is not installed (scripts/docs/install-chromium.sh installs it): the page was not rendered in a browser");
  });
});
