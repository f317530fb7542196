// The web entry in a real headless Chromium (Debian's, installed by `npm test`'s own pretest), with Chromium's
// pop-up blocker on as in a user's browser and no stub of window.open: an accepted invite the server sends to the
// external browser opens a real window, whose opener is cut, and reports external_browser; a pop-up the browser
// blocks reports none, never external_browser. The app page and the participant API are on two origins (CORS).
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium } from "../../scripts/docs/browser.ts";
import type { RunningServer } from "../../server/src/testing.ts";
import { discoverFixtures, fakeClock, PK, startParticipantServer, type FixtureFacts } from "./setup.ts";

const WEB_ENTRY = fileURLToPath(new URL("../src/web.ts", import.meta.url));
let api: RunningServer;
let fx: FixtureFacts;
let app: Server;
let appOrigin = "";
let browser: Browser;

/** What the app page does when the user taps "accept": the seed's calls, through the web entry. */
const APP = `
import { createInterviewClient } from ${JSON.stringify(WEB_ENTRY)};
window.accept = async (baseUrl, publicKey, eventName) => {
  const diagnostics = [];
  const client = createInterviewClient({ publicKey, baseUrl, referenceId: "web_user_" + Math.random().toString(36).slice(2), onDiagnostic: (d) => diagnostics.push(d) });
  await client.ready();
  client.track(eventName);
  const result = await client.startPendingInvite();
  return { result, diagnostics, snapshot: client.getSnapshot() };
};
// Started by the page itself as it loads, with no user gesture, and reported on the console: any evaluate from the
// test before the window opens would count as a gesture and let it through.
if (location.hash.startsWith("#auto=")) {
  window.accept(...JSON.parse(decodeURIComponent(location.hash.slice(6)))).then((o) => console.log("outcome " + JSON.stringify(o)));
}
`;

beforeAll(async () => {
  if (!hasChromium()) return;
  api = await startParticipantServer(fakeClock(Date.now()));
  fx = await discoverFixtures(api.baseUrl);
  const bundle = await build({
    stdin: { contents: APP, resolveDir: fileURLToPath(new URL(".", import.meta.url)), loader: "ts" },
    bundle: true, format: "iife", platform: "browser", write: false, define: { "process.env.NODE_ENV": '"production"' },
  });
  const js = bundle.outputFiles[0].text;
  app = createServer((req, res) => {
    if (req.url === "/app.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><button id="accept">Take the interview</button><script src="/app.js"></script>`);
  });
  await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
  appOrigin = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
  browser = await launchChromium({ popupBlocking: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  app?.close();
  await api?.close();
});

/** A fresh page of the app; the interview site (another host, unreachable from here) is answered locally. */
async function appPage(hash = "", beforeLoad?: (page: Page) => void): Promise<Page> {
  const context = await browser.newContext();
  await context.route((url) => !url.href.startsWith(appOrigin) && !url.href.startsWith(api.origin), (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>interview</title>" }));
  const page = await context.newPage();
  beforeLoad?.(page);
  await page.goto(`${appOrigin}/${hash}`);
  return page;
}

describe.skipIf(!hasChromium())("the web entry in real Chromium", () => {
  it("a tap that leads to external_browser opens a real window, cuts its opener, and reports external_browser", async () => {
    const page = await appPage();
    await page.evaluate(([base, pk, event]) => {
      document.getElementById("accept")!.addEventListener("click", () => void ((window as any).outcome = (window as any).accept(base, pk, event)));
    }, [api.baseUrl, PK, fx.eventFor.external_browser]);
    const popup = page.context().waitForEvent("page", { timeout: 15_000 });
    // A real user gesture: the pop-up blocker lets a window opened from it through.
    await page.click("#accept");
    const opened = await popup;
    const outcome = await page.evaluate(() => (window as any).outcome);
    expect(outcome.result).toBe("external_browser");
    expect(outcome.diagnostics).toContainEqual({ type: "fallback_opened", url: expect.stringMatching(/^https:\/\//) });
    await opened.waitForLoadState();
    expect(opened.url()).toBe(outcome.diagnostics.find((d: { type: string }) => d.type === "fallback_opened").url);
    expect(await opened.evaluate(() => window.opener)).toBeNull();
    expect(page.context().pages()).toHaveLength(2);
    await page.context().close();
  }, 60_000);

  it("a pop-up the browser blocks reports none, not external_browser, and opens nothing", async () => {
    // No user gesture: Chromium's blocker refuses the window and window.open returns null.
    let report!: (text: string) => void;
    const reported = new Promise<string>((r) => (report = r));
    const page = await appPage(`#auto=${encodeURIComponent(JSON.stringify([api.baseUrl, PK, fx.eventFor.external_browser]))}`, (p) =>
      p.on("console", (m) => void (m.text().startsWith("outcome ") && report(m.text().slice(8)))));
    const outcome = JSON.parse(await reported);
    expect(outcome.result).toBe("none");
    expect(outcome.diagnostics).toContainEqual({ type: "bridge_error", error: expect.stringContaining("the browser blocked the new window") });
    expect(outcome.diagnostics.some((d: { type: string }) => d.type === "fallback_opened")).toBe(false);
    expect(outcome.snapshot).toEqual({ pendingInvite: null, activeLaunch: null });
    expect(page.context().pages()).toHaveLength(1);
    await page.context().close();
  }, 60_000);
});
