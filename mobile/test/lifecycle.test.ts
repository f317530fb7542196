// One named test per row of the seed's client-library invite lifecycle table, against the reference server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/src/testing.ts";
import { fakeClock, freshUser, makeClient, settle, startParticipantServer, TOKEN_TTL_MS } from "./setup.ts";

const clock = fakeClock();
let server: RunningServer;
beforeAll(async () => void (server = await startParticipantServer(clock)));
afterAll(() => server.close());

async function ready(extra = {}) {
  const h = makeClient(server.baseUrl, clock, extra);
  await h.client.ready();
  return h;
}

describe("invite lifecycle (seed table)", () => {
  it("no invite + analytics event matching a cached trigger rule -> pending invite, no network call, prompt at once", async () => {
    const h = await ready();
    const before = h.calls.length;
    h.client.track("report_exported", { plan: "pro" });
    expect(h.client.getSnapshot().pendingInvite).toMatchObject({ triggerEvent: "report_exported", prompt: { title: expect.any(String) } });
    expect(h.calls.length).toBe(before);
  });

  it("no invite + synced audience match -> pending invite once the config loads", async () => {
    const h = await ready({ referenceId: "user_4" });
    expect(h.client.getSnapshot().pendingInvite).toMatchObject({ audienceId: expect.any(String) });
    expect(h.client.getSnapshot().pendingInvite?.triggerEvent).toBeUndefined();
  });

  it("pending invite + startPendingInvite + server returns webview -> active launch, result webview", async () => {
    const h = await ready();
    h.client.track("report_exported");
    expect(await h.client.startPendingInvite()).toBe("webview");
    expect(h.client.getSnapshot()).toMatchObject({ pendingInvite: null, activeLaunch: { url: expect.stringContaining("https://") } });
  });

  it("pending invite + startPendingInvite + server returns external_browser -> invite consumed, fallback URL opened, result external_browser", async () => {
    const h = await ready();
    h.client.track("checkout_completed");
    expect(await h.client.startPendingInvite()).toBe("external_browser");
    expect(h.client.getSnapshot()).toEqual({ pendingInvite: null, activeLaunch: null });
    expect(h.opened).toHaveLength(1);
    expect(h.opened[0]).toMatch(/^https:\/\//);
  });

  it("pending invite + startPendingInvite + signed launch expired -> no invite, result expired (no launch request)", async () => {
    const h = await ready();
    h.client.track("report_exported");
    clock.advance(TOKEN_TTL_MS + 1);
    const before = h.calls.filter((c) => c.endsWith("/launches")).length;
    expect(await h.client.startPendingInvite()).toBe("expired");
    expect(h.client.getSnapshot().pendingInvite).toBeNull();
    expect(h.calls.filter((c) => c.endsWith("/launches")).length).toBe(before);
  });

  it("pending invite + startPendingInvite + the server says the launch expired (410) -> result expired", async () => {
    // The client's clock is behind the server's: only the server knows the token has expired.
    let lag = 0;
    const h = await ready({ clock: { now: () => clock.now() - lag } });
    h.client.track("report_exported");
    lag = TOKEN_TTL_MS + 1000;
    clock.advance(TOKEN_TTL_MS + 1000);
    expect(await h.client.startPendingInvite()).toBe("expired");
    expect(h.client.getSnapshot().pendingInvite).toBeNull();
  });

  it("pending invite + startPendingInvite + server declines -> no invite, result not_eligible", async () => {
    const h = await ready();
    h.client.track("onboarding_finished");
    expect(await h.client.startPendingInvite()).toBe("not_eligible");
    expect(h.client.getSnapshot()).toEqual({ pendingInvite: null, activeLaunch: null });
  });

  it("pending invite + dismissPendingInvite -> no invite, interview not opened", async () => {
    const h = await ready();
    h.client.track("report_exported");
    h.client.dismissPendingInvite();
    await settle();
    expect(h.client.getSnapshot()).toEqual({ pendingInvite: null, activeLaunch: null });
    expect(h.calls.some((c) => c.endsWith("/launches"))).toBe(false);
    expect(h.calls.filter((c) => c.endsWith("/prompt-events")).length).toBe(1);
  });

  it("any + setUser (new identity) -> no invite, trigger config refetched, in-flight launch of the previous user discarded", async () => {
    const h = await ready();
    h.client.track("report_exported");
    const configs = h.calls.filter((c) => c.endsWith("/config")).length;
    const inFlight = h.client.startPendingInvite();
    h.client.setUser(freshUser());
    expect(h.client.getSnapshot().pendingInvite).toBeNull();
    expect(await inFlight).toBe("none");
    expect(h.client.getSnapshot().activeLaunch).toBeNull();
    expect(h.diagnostics.some((d) => d.type === "launch_discarded")).toBe(true);
    await h.client.ready();
    expect(h.calls.filter((c) => c.endsWith("/config")).length).toBe(configs + 1);
  });

  it("no invite + handleLink with a valid invite link -> active launch, external browser, or not_eligible", async () => {
    const h = await ready();
    expect(await h.client.handleLink("https://interviews.example.com/i/acWeb1")).toEqual({ handled: true, mode: "webview" });
    expect(h.client.getSnapshot().activeLaunch).toMatchObject({ source: "link" });
    h.client.closeActiveLaunch();
    expect(await h.client.handleLink("https://interviews.example.com/interviews/acExt1")).toEqual({ handled: true, mode: "external_browser" });
    expect(h.opened).toHaveLength(1);
    expect(await h.client.handleLink("https://interviews.example.com/i/acFull1")).toEqual({ handled: true, mode: "not_eligible" });
    expect(await h.client.handleLink("https://interviews.example.com/i/nosuchcode")).toEqual({ handled: true, mode: "not_eligible" });
    expect(await h.client.handleLink("http://interviews.example.com/i/acWeb1")).toEqual({ handled: false, reason: "not_interview_link" });
    expect(await h.client.handleLink("https://interviews.example.com/settings")).toEqual({ handled: false, reason: "not_interview_link" });
  });

  it("handleLink when the service is unreachable -> resolve_failed, never a throw", async () => {
    const h = makeClient("http://127.0.0.1:9/api", clock);
    expect(await h.client.handleLink("https://interviews.example.com/i/acWeb1")).toEqual({ handled: false, reason: "resolve_failed" });
    expect(h.diagnostics.some((d) => d.type === "launch_failed")).toBe(true);
  });
});
