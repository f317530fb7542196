// wrapTrackClient never changes what the app's analytics client does, only primitives leave the device,
// unrelated events cost no network call, and the config is fetched once per time-to-live.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/src/testing.ts";
import { CONFIG_TTL_S, fakeClock, makeClient, settle, startParticipantServer } from "./setup.ts";

const clock = fakeClock();
let server: RunningServer;
beforeAll(async () => void (server = await startParticipantServer(clock)));
afterAll(() => server.close());

class Analytics {
  calls: Array<[string, unknown]> = [];
  flushed = false;
  readonly name = "acme-analytics";
  track(event: string, props?: unknown) {
    this.calls.push([event, props]);
    return `tracked:${event}`;
  }
  flush() {
    this.flushed = true;
    return this.calls.length;
  }
}

describe("wrapTrackClient", () => {
  it("runs the original first and returns its value; other members pass through with their `this`", async () => {
    const h = makeClient(server.baseUrl, clock);
    await h.client.ready();
    const analytics = new Analytics();
    const wrapped = h.client.wrapTrackClient(analytics);
    expect(wrapped.track("report_exported", { a: 1 })).toBe("tracked:report_exported");
    expect(analytics.calls).toEqual([["report_exported", { a: 1 }]]);
    expect(h.client.getSnapshot().pendingInvite?.triggerEvent).toBe("report_exported");
    expect(wrapped.flush()).toBe(1);
    expect(analytics.flushed).toBe(true);
    expect(wrapped.name).toBe("acme-analytics");
    expect(wrapped).toBeInstanceOf(Analytics);
  });

  it("rethrows the original's error unchanged, and returns its promise as is", async () => {
    const h = makeClient(server.baseUrl, clock);
    const boom = new Error("analytics down");
    const throwing = h.client.wrapTrackClient({ track: (_event: string): never => { throw boom; } });
    expect(() => throwing.track("report_exported")).toThrow(boom);
    const p = Promise.resolve(42);
    const asyncClient = h.client.wrapTrackClient({ track: (_event: string) => p });
    expect(asyncClient.track("x")).toBe(p);
  });

  it("keeps the app working when the service is down: same return value, failures only in diagnostics", async () => {
    const h = makeClient("http://127.0.0.1:9/api", clock);
    const wrapped = h.client.wrapTrackClient(new Analytics());
    expect(wrapped.track("report_exported")).toBe("tracked:report_exported");
    await h.client.ready();
    await settle();
    expect(h.diagnostics.some((d) => d.type === "config_failed")).toBe(true);
    expect(await h.client.startPendingInvite()).toBe("none");
  });

  it("sends only the event name and JSON-primitive metadata", async () => {
    const bodies: any[] = [];
    const h = makeClient(server.baseUrl, clock, {
      mapTrackProperties: (_e, props: any) => ({ plan: props.plan, seats: props.seats, admin: true, nothing: null, user: props.user, tags: ["a"], when: new Date(0), nan: Number.NaN, fn: () => 1 }),
      fetch: (input, init) => {
        if (String(input).endsWith("/launches")) bodies.push(JSON.parse(String(init?.body)));
        return fetch(input, init);
      },
    });
    await h.client.ready();
    h.client.track("report_exported", { plan: "pro", seats: 12, user: { email: "secret@example.org" }, password: "x" });
    await h.client.startPendingInvite();
    expect(bodies).toHaveLength(1);
    expect(bodies[0].triggerEvent).toBe("report_exported");
    expect(bodies[0].metadata).toEqual({ plan: "pro", seats: 12, admin: true, nothing: null });
    expect(JSON.stringify(bodies[0])).not.toContain("secret@example.org");
    expect(h.diagnostics.filter((d) => d.type === "metadata_dropped").map((d) => (d as { key: string }).key).sort()).toEqual(["fn", "nan", "tags", "user", "when"]);
  });

  it("a throwing onDiagnostic never reaches the app", async () => {
    const h = makeClient("http://127.0.0.1:9/api", clock, { onDiagnostic: () => { throw new Error("logger broke"); } });
    const wrapped = h.client.wrapTrackClient(new Analytics());
    expect(() => wrapped.track("anything")).not.toThrow();
    await h.client.ready();
  });
});

describe("network cost", () => {
  it("unrelated events cost no call; the config is fetched once per TTL, concurrent callers sharing one fetch", async () => {
    const h = makeClient(server.baseUrl, clock);
    h.client.track("page_viewed");
    h.client.track("settings_opened");
    await h.client.ready();
    const configs = () => h.calls.filter((c) => c.endsWith("/config")).length;
    expect(configs()).toBe(1);
    for (let i = 0; i < 500; i++) h.client.track(i % 2 ? "page_viewed" : "button_clicked", { i });
    await settle();
    expect(h.calls.length).toBe(1);
    clock.advance(CONFIG_TTL_S * 1000 - 1);
    h.client.track("page_viewed");
    expect(configs()).toBe(1);
    clock.advance(2);
    h.client.track("page_viewed");
    h.client.track("page_viewed");
    await h.client.ready();
    expect(configs()).toBe(2);
  });

  it("persists the config in storage, so a restart within the TTL makes no call", async () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const first = makeClient(server.baseUrl, clock, { storage, referenceId: "persisted_user" });
    await first.client.ready();
    const second = makeClient(server.baseUrl, clock, { storage, referenceId: "persisted_user" });
    await second.client.ready();
    second.client.track("report_exported");
    expect(second.calls).toEqual([]);
    expect(second.client.getSnapshot().pendingInvite).not.toBeNull();
  });
});
