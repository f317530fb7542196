// The seed's client-library rules the package once departed from, each held by a deterministic test on the packaged
// build (dist/), with a scripted service: a default link opener on every entry (and no success that opened nothing),
// fallback origins allowed, the server's time-to-live honoured as given, the config backoff, and the app's own
// `track` running before the interview client sees the event.
import { afterEach, describe, expect, it } from "vitest";
import { createInterviewClient as createCore } from "../dist/core/index.js";
import { createInterviewClient as createWeb } from "../dist/web.js";
import type { Diagnostic } from "../src/core/types.ts";

const BASE = "https://interviews.example.com/api";
const rule = { launchRuleId: "rule_1", eventName: "purchase", experimentId: "exp_1", launchToken: "tok", launchTokenExpiresAt: "2099-01-01T00:00:00Z", prompt: { title: "T", body: "B", acceptLabel: "Yes", dismissLabel: "No" } };

/** A scripted service: config with `ttlSeconds`, launches answering `mode`; `down` fails every request. */
function service(opts: { ttlSeconds?: number; mode?: "webview" | "external_browser" } = {}) {
  const s = { calls: [] as string[], down: false, ttlSeconds: opts.ttlSeconds ?? 300, mode: opts.mode ?? "external_browser" };
  const fetch = async (url: string, init: { method: string }) => {
    const path = url.replace(BASE, "").split("?")[0];
    s.calls.push(`${init.method} ${path}`);
    if (s.down) throw new TypeError("Network request failed");
    const body = path.endsWith("/config")
      ? { object: "participant_config", ttlSeconds: s.ttlSeconds, triggerRules: [rule], audienceMatches: [] }
      : path.endsWith("/launches")
        ? { object: "launch", mode: s.mode, url: s.mode === "webview" ? "https://interviews.example.com/s/x" : "https://fallback.example.net/take/abc", expiresAt: null, reason: null }
        : { object: "prompt_event", duplicate: false };
    return { ok: true, status: 200, text: async () => JSON.stringify(body) };
  };
  return Object.assign(s, { fetch, count: (suffix: string) => s.calls.filter((c) => c.endsWith(suffix)).length });
}

function clock(start = Date.parse("2026-03-02T12:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const g = globalThis as { open?: unknown };
afterEach(() => {
  delete g.open;
});

describe("a default link opener on every entry", () => {
  for (const [entry, create] of [["core", createCore], ["web", createWeb]] as const) {
    // The call's shape only; what a real browser does with it (a real window, a blocked pop-up) is web-browser.test.ts.
    it(`${entry}: external_browser opens the fallback with the platform's opener (window.open, no "noopener" feature, opener cut) and says so`, async () => {
      const opened: unknown[][] = [];
      const win = { opener: {} as unknown };
      g.open = (...args: unknown[]) => (opened.push(args), win);
      const svc = service();
      const client = create({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never });
      await client.ready();
      client.track("purchase");
      expect(await client.startPendingInvite()).toBe("external_browser");
      expect(opened).toEqual([["https://fallback.example.net/take/abc", "_blank"]]);
      expect(win.opener).toBeNull();
      expect(client.fallbackOrigins()).toEqual(["https://fallback.example.net"]);
    });

    it(`${entry}: with nothing to open the URL (no opener, or a blocked pop-up) the result is none, never a success`, async () => {
      for (const open of [undefined, () => null]) {
        if (open) g.open = open;
        else delete g.open;
        const diagnostics: Diagnostic[] = [];
        const svc = service();
        const client = create({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never, onDiagnostic: (d) => diagnostics.push(d) });
        await client.ready();
        client.track("purchase");
        expect(await client.startPendingInvite()).toBe("none");
        expect(diagnostics.map((d) => d.type)).toContain(open ? "bridge_error" : "fallback_unavailable");
        expect(await client.handleLink("https://interviews.example.com/i/ABCDEFGH")).toEqual({ handled: false, reason: "resolve_failed" });
      }
    });
  }

  it("an app's own openFallbackUrl wins over the platform's", async () => {
    g.open = () => {
      throw new Error("the platform opener must not be used");
    };
    const mine: string[] = [];
    const svc = service();
    const client = createCore({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never, openFallbackUrl: (u) => void mine.push(u) });
    expect(await client.handleLink("https://interviews.example.com/i/ABCDEFGH")).toEqual({ handled: true, mode: "external_browser" });
    expect(mine).toEqual(["https://fallback.example.net/take/abc"]);
  });
});

describe("the trigger config's time-to-live, as the server gives it", () => {
  it("ttlSeconds 2: the config is fresh for exactly 2 s (no 10 s floor)", async () => {
    const c = clock();
    const svc = service({ ttlSeconds: 2 });
    const client = createCore({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never, clock: c, openFallbackUrl: () => {} });
    await client.ready();
    c.advance(1_999);
    client.track("unrelated");
    await client.ready();
    expect(svc.count("/config")).toBe(1);
    c.advance(1);
    client.track("unrelated");
    await client.ready();
    expect(svc.count("/config")).toBe(2);
  });

  it("ttlSeconds 0: nothing is cached, every event asks (one request at a time)", async () => {
    const svc = service({ ttlSeconds: 0 });
    const client = createCore({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never, clock: clock(), openFallbackUrl: () => {} });
    await client.ready();
    for (let i = 0; i < 3; i++) {
      client.track("unrelated");
      await client.ready();
    }
    expect(svc.count("/config")).toBe(4);
    client.track("unrelated");
    client.track("unrelated"); // while the first is in flight: shared
    await client.ready();
    expect(svc.count("/config")).toBe(5);
  });
});

describe("the config backoff while the service is down", () => {
  it("retries after 5 s, then 10 s, not on every event", async () => {
    const c = clock();
    const svc = service();
    svc.down = true;
    const diagnostics: Diagnostic[] = [];
    const client = createCore({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never, clock: c, onDiagnostic: (d) => diagnostics.push(d) });
    await client.ready();
    expect(svc.count("/config")).toBe(1);
    expect(diagnostics.find((d) => d.type === "config_failed")).toMatchObject({ retryInMs: 5_000 });
    for (const step of [0, 2_000, 2_999]) {
      c.advance(step);
      client.track("purchase");
      await client.ready();
    }
    expect(svc.count("/config")).toBe(1); // 4,999 ms later: still backing off
    c.advance(1);
    client.track("purchase");
    await client.ready();
    expect(svc.count("/config")).toBe(2);
    expect(diagnostics.filter((d) => d.type === "config_failed").map((d) => (d as { retryInMs: number }).retryInMs)).toEqual([5_000, 10_000]);
    c.advance(9_999);
    client.track("purchase");
    await client.ready();
    expect(svc.count("/config")).toBe(2);
  });
});

describe("wrapTrackClient", () => {
  it("runs the app's own track before the interview client sees the event", async () => {
    const svc = service({ mode: "webview" });
    const client = createCore({ publicKey: "pk_live_x", baseUrl: BASE, referenceId: "u1", fetch: svc.fetch as never });
    await client.ready();
    const seenByApp: Array<unknown> = [];
    const analytics = client.wrapTrackClient({ track: (name: string) => void seenByApp.push([name, client.getSnapshot().pendingInvite]) });
    analytics.track("purchase");
    // Inside the app's track the invite did not exist yet; right after, it does (the match is synchronous).
    expect(seenByApp).toEqual([["purchase", null]]);
    expect(client.getSnapshot().pendingInvite?.triggerEvent).toBe("purchase");
  });
});
