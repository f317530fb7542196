// The durable prompt funnel on React Native, with AsyncStorage's own Jest mock as the storage: phases queued while
// offline go out in order once the service answers; a restart sends what the last run queued; the queue is bounded
// (the oldest dropped); backoff holds requests back; going to the background flushes.
import { describe, expect, it, jest, beforeEach } from "@jest/globals";
import AsyncStorage from "@react-native-async-storage/async-storage";
import { AppState } from "react-native";
import { createInterviewClient } from "../dist/index.js";

jest.mock("@react-native-async-storage/async-storage", () => jest.requireActual<any>("@react-native-async-storage/async-storage/jest").default ?? jest.requireActual("@react-native-async-storage/async-storage/jest"));

// The queue's key: per server URL and public key (README, "Storage").
const QUEUE_KEY = "interviews.prompt-events.v2|https://interviews.example.com/api|pk_live_x";
const rule = (n: number) => ({ launchRuleId: `rule_${n}`, eventName: `event_${n}`, experimentId: "exp_1", launchToken: "tok", launchTokenExpiresAt: "2099-01-01T00:00:00Z", prompt: { title: "T", body: "B", acceptLabel: "Yes", dismissLabel: "No" } });

function service() {
  const s = { down: true, delivered: [] as Array<{ eventId: string; phase: string }>, attempts: 0 };
  const fetch = jest.fn(async (url: string, init: { method: string; body?: string }) => {
    if (url.endsWith("/prompt-events")) {
      s.attempts++;
      if (s.down) throw new TypeError("Network request failed");
      s.delivered.push(JSON.parse(init.body!));
      return { ok: true, status: 200, text: async () => JSON.stringify({ object: "prompt_event", duplicate: false }) };
    }
    const body = { object: "participant_config", ttlSeconds: 300, triggerRules: Array.from({ length: 60 }, (_, i) => rule(i)), audienceMatches: [] };
    return { ok: true, status: 200, text: async () => JSON.stringify(body) };
  });
  return Object.assign(s, { fetch });
}

function clock(start = Date.parse("2026-03-02T12:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const stored = async () => JSON.parse((await AsyncStorage.getItem(QUEUE_KEY)) ?? "[]") as Array<{ eventId: string; phase: string }>;
const settle = () => new Promise((r) => setTimeout(r, 0));

/** Shows and dismisses the invite of rule n: two phases. */
async function showAndDismiss(client: ReturnType<typeof createInterviewClient>, n: number) {
  client.track(`event_${n}`);
  client.reportPromptShown();
  client.dismissPendingInvite();
  await settle();
}

beforeEach(async () => {
  await AsyncStorage.clear();
});

describe("the durable prompt funnel", () => {
  it("queues phases while offline, persisted, and sends them in order with the same eventIds once the service answers", async () => {
    const svc = service();
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await client.ready();
    await showAndDismiss(client, 1);
    expect(client.pendingEvents()).toBe(2);
    const queued = await stored();
    expect(queued.map((e) => e.phase)).toEqual(["shown", "dismissed"]);
    svc.down = false;
    await client.flush();
    expect(svc.delivered.map((e) => [e.phase, e.eventId])).toEqual(queued.map((e) => [e.phase, e.eventId]));
    expect(client.pendingEvents()).toBe(0);
    await settle();
    expect(await stored()).toEqual([]);
  });

  it("sends after a restart what the previous run queued", async () => {
    const svc = service();
    const first = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await first.ready();
    await showAndDismiss(first, 2);
    const queued = await stored();
    expect(queued).toHaveLength(2);
    // The app is killed; the next launch finds the queue and the service reachable.
    svc.down = false;
    const next = service();
    next.down = false;
    const second = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: next.fetch as never, storage: AsyncStorage, clock: clock() });
    await second.ready();
    for (let i = 0; i < 20 && second.pendingEvents() > 0; i++) await settle();
    expect(next.delivered.map((e) => e.eventId)).toEqual(queued.map((e) => e.eventId));
    expect(second.pendingEvents()).toBe(0);
  });

  it("is bounded at 100 events: on overflow the oldest are dropped, with a diagnostic", async () => {
    const old = Array.from({ length: 100 }, (_, i) => ({ eventId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, phase: "shown", referenceId: "u1", occurredAt: "2026-03-01T00:00:00.000Z", launchRuleId: "r", experimentId: "e" }));
    await AsyncStorage.setItem(QUEUE_KEY, JSON.stringify(old));
    const svc = service();
    const diagnostics: Array<{ type: string }> = [];
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock(), onDiagnostic: (d) => void diagnostics.push(d) });
    await client.ready();
    await showAndDismiss(client, 3);
    expect(client.pendingEvents()).toBe(100);
    expect(diagnostics.filter((d) => d.type === "prompt_event_dropped")).toEqual([
      { type: "prompt_event_dropped", phase: "shown", reason: "queue_full" },
      { type: "prompt_event_dropped", phase: "shown", reason: "queue_full" },
    ]);
    const queue = await stored();
    expect(queue).toHaveLength(100);
    expect(queue[0].eventId).toBe(old[2].eventId);
    expect(queue.slice(-2).map((e) => e.phase)).toEqual(["shown", "dismissed"]);
  });

  it("backs off after a failure: new phases within 2 s wait, the next one after it sends everything", async () => {
    const svc = service();
    const c = clock();
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: c });
    await client.ready();
    await showAndDismiss(client, 4);
    expect(svc.attempts).toBe(1); // the first phase failed; the second waited for the backoff
    svc.down = false;
    c.advance(1_999);
    await showAndDismiss(client, 5);
    expect(svc.attempts).toBe(1);
    c.advance(1);
    await showAndDismiss(client, 6);
    for (let i = 0; i < 10 && svc.delivered.length < 6; i++) await settle();
    expect(svc.delivered.map((e) => e.phase)).toEqual(["shown", "dismissed", "shown", "dismissed", "shown", "dismissed"]);
  });

  it("flushes when the app goes to the background, backoff or not", async () => {
    const listeners: Array<(state: string) => void> = [];
    const add = jest.spyOn(AppState, "addEventListener").mockImplementation(((_type: string, l: (state: string) => void) => (listeners.push(l), { remove: () => {} })) as never);
    const svc = service();
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1", fetch: svc.fetch as never, storage: AsyncStorage, clock: clock() });
    await client.ready();
    await showAndDismiss(client, 7);
    svc.down = false;
    expect(svc.delivered).toEqual([]);
    for (const l of listeners) l("background");
    for (let i = 0; i < 10 && svc.delivered.length < 2; i++) await settle();
    expect(svc.delivered.map((e) => e.phase)).toEqual(["shown", "dismissed"]);
    add.mockRestore();
  });
});
