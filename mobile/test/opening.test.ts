// What an app sees when it opens an interview outside the app, and when the server says "do not cache": against the
// real reference server. (The browser's own window.open runs in real Chromium: web-browser.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { discoverFixtures, fakeClock, makeClient, settle, startParticipantServer, TOKEN_TTL_MS, type FixtureFacts } from "./setup.ts";

const clock = fakeClock();
let server: RunningServer;
let fx: FixtureFacts;
beforeAll(async () => {
  server = await startParticipantServer(clock);
  fx = await discoverFixtures(server.baseUrl);
});
afterAll(() => server.close());

describe("ttl 0: no caching, never no invites", () => {
  let noCache: RunningServer;
  beforeAll(async () => void (noCache = await startServer({ clock, launchTokenTtlMs: TOKEN_TTL_MS, participantConfigTtlSeconds: 0 })));
  afterAll(() => noCache.close());

  it("judges each matching event by the config fetched for it, and offers the invite", async () => {
    const h = makeClient(noCache.baseUrl, clock);
    await h.client.ready();
    const fetched = h.count("config");
    h.client.track(fx.eventFor.webview);
    // Nothing is cached, so the event waits for its own config; then the invite is there.
    expect(h.client.getSnapshot().pendingInvite).toBeNull();
    await h.client.ready();
    expect(h.count("config")).toBe(fetched + 1);
    expect(h.client.getSnapshot().pendingInvite).toMatchObject({ triggerEvent: fx.eventFor.webview });
    expect(h.diagnostics.filter((d) => d.type === "event_ignored" && d.reason === "config_unavailable")).toEqual([]);
    expect(await h.client.startPendingInvite()).toBe("webview");
  });

  it("asks again for every event (events at the same moment share one request), and unrelated events are still ignored", async () => {
    const h = makeClient(noCache.baseUrl, clock);
    await h.client.ready();
    const fetched = h.count("config");
    h.client.track("page_viewed");
    await h.client.ready();
    h.client.track("settings_opened");
    h.client.track("button_clicked");
    await h.client.ready();
    expect(h.count("config")).toBe(fetched + 2);
    expect(h.client.getSnapshot().pendingInvite).toBeNull();
    expect(h.diagnostics.filter((d) => d.type === "event_ignored").map((d) => (d as { reason: string }).reason)).toEqual(["no_matching_rule", "no_matching_rule", "no_matching_rule"]);
  });
});

describe("an opener that fails: none, and the app unharmed", () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeAll(() => void process.on("unhandledRejection", onUnhandled));
  afterAll(() => void process.off("unhandledRejection", onUnhandled));

  for (const [what, opener] of [
    ["rejects (as Linking.openURL does when nothing can open the URL)", () => Promise.reject(new Error("No app can open this URL"))],
    ["throws", () => {
      throw new Error("no browser");
    }],
  ] as const) {
    it(`startPendingInvite answers none when the opener ${what}`, async () => {
      const h = makeClient(server.baseUrl, clock, { openFallbackUrl: opener });
      await h.client.ready();
      h.client.track(fx.eventFor.external_browser);
      expect(await h.client.startPendingInvite()).toBe("none");
      expect(h.client.getSnapshot()).toEqual({ pendingInvite: null, activeLaunch: null });
      expect(h.diagnostics).toContainEqual({ type: "bridge_error", error: expect.stringContaining("openFallbackUrl failed") });
      expect(h.diagnostics.some((d) => d.type === "fallback_opened")).toBe(false);
      await settle();
      expect(unhandled).toEqual([]);
    });

    it(`handleLink answers resolve_failed when the opener ${what}`, async () => {
      const h = makeClient(server.baseUrl, clock, { openFallbackUrl: opener });
      await h.client.ready();
      expect(await h.client.handleLink(`https://interviews.example.com/i/${fx.linkFor.external_browser}`)).toEqual({ handled: false, reason: "resolve_failed" });
      await settle();
      expect(unhandled).toEqual([]);
    });
  }

  it("an opener that resolves is external_browser, once it resolved", async () => {
    let resolveOpen!: () => void;
    const h = makeClient(server.baseUrl, clock, { openFallbackUrl: () => new Promise<void>((r) => (resolveOpen = r)) });
    await h.client.ready();
    h.client.track(fx.eventFor.external_browser);
    let result: string | undefined;
    const started = h.client.startPendingInvite().then((r) => (result = r));
    for (let i = 0; i < 50 && !resolveOpen; i++) await settle();
    expect(result).toBeUndefined();
    resolveOpen();
    await started;
    expect(result).toBe("external_browser");
  });
});
