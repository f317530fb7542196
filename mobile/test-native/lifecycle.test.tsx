// The client's storage and lifecycle in an app, under React Native's Jest preset with AsyncStorage's own Jest mock:
// state kept per server URL and public key, a 401 that keeps the queue (onError, retried with backoff), optOut and
// optIn, reset on logout, and dispose. The service is a scripted fetch that records every request.
import { beforeEach, describe, expect, it, jest } from "@jest/globals";
import AsyncStorage from "@react-native-async-storage/async-storage";
import { AppState } from "react-native";
import { createInterviewClient } from "../dist/index.js";

jest.mock("@react-native-async-storage/async-storage", () => jest.requireActual<any>("@react-native-async-storage/async-storage/jest").default ?? jest.requireActual("@react-native-async-storage/async-storage/jest"));

const STAGING = "https://staging.example.com/api";
const PRODUCTION = "https://api.example.com/api";
const rule = (n: number, eventName: string) => ({ launchRuleId: `rule_${n}`, eventName, experimentId: "exp_1", launchToken: "tok", launchTokenExpiresAt: "2099-01-01T00:00:00Z", prompt: { title: "T", body: "B", acceptLabel: "Yes", dismissLabel: "No" } });

/** A scripted service: its config, its answer to prompt events (200 or a status), and every request it got. */
function service(promptStatus = 200) {
  const s = { promptStatus, requests: [] as Array<{ url: string; method: string; body?: any }>, delivered: [] as any[] };
  const fetch = jest.fn(async (url: string, init: { method: string; body?: string }) => {
    s.requests.push({ url, method: init.method, body: init.body ? JSON.parse(init.body) : undefined });
    if (url.includes("/prompt-events")) {
      if (s.promptStatus !== 200) return { ok: false, status: s.promptStatus, text: async () => JSON.stringify({ error: { type: "authentication_error", message: "Invalid public key" } }) };
      s.delivered.push(JSON.parse(init.body!));
      return { ok: true, status: 200, text: async () => "{}" };
    }
    return { ok: true, status: 200, text: async () => JSON.stringify({ object: "participant_config", ttlSeconds: 300, triggerRules: [rule(1, "purchase"), rule(2, "signup")], audienceMatches: [] }) };
  });
  return Object.assign(s, { fetch, count: (path: string) => s.requests.filter((r) => r.url.includes(path)).length });
}

function clock(start = Date.parse("2026-03-02T12:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const settle = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};
const keys = async () => [...(await AsyncStorage.getAllKeys())].sort();

/** Shows and dismisses the invite of `purchase`: two prompt events. */
async function showAndDismiss(client: ReturnType<typeof createInterviewClient>) {
  client.track("purchase");
  client.reportPromptShown();
  client.dismissPendingInvite();
  await settle();
}

beforeEach(async () => {
  await AsyncStorage.clear();
});

describe("storage, per server URL and public key", () => {
  it("keeps two environments of one app apart: each its own config and queue, never the other's", async () => {
    const staging = service(401);
    const production = service(401);
    const a = createInterviewClient({ publicKey: "pk_live_staging", baseUrl: STAGING, referenceId: "u1", fetch: staging.fetch as never, storage: AsyncStorage, clock: clock() });
    await a.ready();
    await showAndDismiss(a);
    expect(a.pendingEvents()).toBe(2);
    expect(await keys()).toEqual([`interviews.participant-config.v2|${STAGING}|pk_live_staging`, `interviews.prompt-events.v2|${STAGING}|pk_live_staging`]);
    // Production starts on the same storage: it reads nothing of staging's, and sends none of its events.
    production.promptStatus = 200;
    const b = createInterviewClient({ publicKey: "pk_live_prod", baseUrl: PRODUCTION, referenceId: "u1", fetch: production.fetch as never, storage: AsyncStorage, clock: clock() });
    await b.ready();
    await b.flush();
    expect(b.pendingEvents()).toBe(0);
    expect(production.delivered).toEqual([]);
    expect(production.count("/config")).toBe(1);
    expect(JSON.parse((await AsyncStorage.getItem(`interviews.prompt-events.v2|${STAGING}|pk_live_staging`))!)).toHaveLength(2);
  });
});

describe("a 401 keeps the queue", () => {
  it("reports it through onError, keeps every event, retries with backoff, and delivers once the key is fixed", async () => {
    const svc = service(401);
    const c = clock();
    const errors: unknown[] = [];
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: PRODUCTION, referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: c, onError: (e) => void errors.push(e) });
    await client.ready();
    await showAndDismiss(client);
    expect(errors[0]).toEqual({ type: "unauthorized", status: 401, operation: "prompt_event", message: expect.stringContaining("401") });
    expect(client.pendingEvents()).toBe(2);
    const attempts = svc.count("/prompt-events");
    // Within the backoff nothing more is sent; a new phase does not force it either.
    c.advance(1_000);
    client.track("signup");
    client.reportPromptShown();
    await settle();
    expect(svc.count("/prompt-events")).toBe(attempts);
    expect(client.pendingEvents()).toBe(3);
    // The key is fixed on the server's side; after the backoff the queue goes out whole, in order.
    svc.promptStatus = 200;
    c.advance(1_000);
    await client.flush();
    expect(svc.delivered.map((e) => e.phase)).toEqual(["shown", "dismissed", "shown"]);
    expect(client.pendingEvents()).toBe(0);
  });
});

describe("optOut and optIn", () => {
  it("while opted out nothing is sent or stored, across a restart; optIn brings matching back", async () => {
    const svc = service();
    const first = createInterviewClient({ publicKey: "pk_live_x", baseUrl: PRODUCTION, referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await first.ready();
    svc.promptStatus = 503;
    await showAndDismiss(first);
    expect(first.pendingEvents()).toBe(2);
    first.track("signup");
    expect(first.getSnapshot().pendingInvite).not.toBeNull();
    first.optOut();
    await settle();
    expect(first.isOptedOut()).toBe(true);
    expect(first.getSnapshot().pendingInvite).toBeNull();
    expect(first.pendingEvents()).toBe(0);
    // Only the choice itself is kept.
    expect(await keys()).toEqual([`interviews.opt-out.v2|${PRODUCTION}|pk_live_x`]);
    const before = svc.requests.length;
    first.track("purchase");
    first.reportPromptShown();
    await first.flush();
    expect(first.getSnapshot().pendingInvite).toBeNull();
    expect(await first.startPendingInvite()).toBe("none");
    expect(await first.handleLink("https://api.example.com/i/abcdef")).toEqual({ handled: false, reason: "resolve_failed" });
    expect(svc.requests.length).toBe(before);

    // The app restarts: still opted out, no request at all.
    const second = createInterviewClient({ publicKey: "pk_live_x", baseUrl: PRODUCTION, referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await second.ready();
    second.track("purchase");
    await settle();
    expect(second.isOptedOut()).toBe(true);
    expect(svc.requests.length).toBe(before);
    expect(await keys()).toEqual([`interviews.opt-out.v2|${PRODUCTION}|pk_live_x`]);

    second.optIn();
    await second.ready();
    expect(svc.count("/config")).toBeGreaterThan(0);
    second.track("signup");
    expect(second.getSnapshot().pendingInvite).toMatchObject({ launchRuleId: "rule_2" });
    expect(await keys()).not.toContain(`interviews.opt-out.v2|${PRODUCTION}|pk_live_x`);
  });
});

describe("reset on logout", () => {
  it("forgets the user, the pending invite and the cached config (in storage too); queued events still go out", async () => {
    const svc = service(503);
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: PRODUCTION, referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await client.ready();
    await showAndDismiss(client);
    client.track("signup");
    expect(client.getSnapshot().pendingInvite).not.toBeNull();
    client.reset();
    expect(client.getSnapshot()).toEqual({ pendingInvite: null, activeLaunch: null });
    await client.ready();
    await settle();
    const configs = svc.requests.filter((r) => r.url.includes("/config"));
    expect(configs.at(-1)!.url).not.toContain("referenceId");
    // The config refetched for nobody replaced the stored one of u1.
    expect(JSON.parse((await AsyncStorage.getItem(`interviews.participant-config.v2|${PRODUCTION}|pk_live_x`))!).referenceId).toBeNull();
    expect(client.pendingEvents()).toBe(2);
    svc.promptStatus = 200;
    await client.flush();
    expect(svc.delivered.map((e) => [e.phase, e.referenceId])).toEqual([["shown", "u1"], ["dismissed", "u1"]]);
  });
});

describe("dispose", () => {
  it("removes the app-state listener and clears the retry timer; the client does nothing afterwards", async () => {
    const remove = jest.fn();
    const add = jest.spyOn(AppState, "addEventListener").mockImplementation((() => ({ remove })) as never);
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"] });
    try {
      const svc = service(503);
      const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: PRODUCTION, referenceId: "u1", fetch: svc.fetch as never, clock: clock() });
      await client.ready();
      client.track("purchase");
      client.reportPromptShown();
      await Promise.resolve();
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(jest.getTimerCount()).toBeGreaterThan(0); // the backoff timer of the failed send
      client.dispose();
      expect(remove).toHaveBeenCalledTimes(1);
      expect(jest.getTimerCount()).toBe(0);
      const before = svc.requests.length;
      client.track("purchase");
      await client.flush();
      expect(svc.requests.length).toBe(before);
    } finally {
      jest.useRealTimers();
      add.mockRestore();
    }
  });
});
