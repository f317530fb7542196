// Two tenants on one sandbox (Acme and Globex are two organisations): one tenant's flood, stuck receivers, streams,
// held requests and planted data never take what the other needs. Each limit is hit through real HTTP and answered
// in the envelope with 409 or 429.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.ts";
import { ACME, GLOBEX, startApi, type Api } from "./helpers.ts";
import { sleep, waitFor } from "../../test/support/wait.ts";

const apis: Api[] = [];
const servers: Server[] = [];
const held: ServerResponse[] = [];
afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => (s.closeAllConnections(), s.close(r)));
  for (const a of apis.splice(0)) await a.server.close();
});

async function api(options: Parameters<typeof startApi>[0] = {}): Promise<Api> {
  const a = await startApi({ clock: systemClock, ...options });
  apis.push(a);
  return a;
}

/** A receiver: `stuck` ones accept and never answer; the others answer 200 and note when each delivery arrived. */
async function receiver(stuck: boolean) {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(Date.now());
    if (stuck) held.push(res);
    else req.resume().on("end", () => res.writeHead(200).end());
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals };
}

async function completeOne(a: Api, key: string): Promise<void> {
  const study = (await a.req("/_sim/studies", { method: "POST", key, body: {} })).body;
  const i = (await a.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, hold: true } })).body;
  expect((await a.req(`/_sim/interviews/${i.id}/complete`, { method: "POST", key })).status).toBe(200);
}

describe("delivery slots are shared fairly, per tenant then per project", () => {
  it("8 of one tenant's projects with receivers that never answer do not delay another tenant's first attempt past 2 s", async () => {
    const a = await api({ webhookTimeoutMs: 60_000 });
    const stuck = await receiver(true);
    const keys: string[] = [];
    for (let p = 0; p < 8; p++) {
      const made = (await a.req("/_sim/projects", { method: "POST", key: ACME, body: { name: `flood ${p}` } })).body;
      keys.push(made.api_key);
      expect((await a.req("/v1/webhooks", { method: "PUT", key: made.api_key, body: { url: stuck.url, events: ["interview.completed"] } })).status).toBe(201);
    }
    // 10 events per project: 80 attempts that would each hold a slot for a minute.
    await Promise.all(keys.map(async (key) => {
      const study = (await a.req("/_sim/studies", { method: "POST", key, body: {} })).body;
      for (let n = 0; n < 10; n++) {
        const i = (await a.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, hold: true } })).body;
        await a.req(`/_sim/interviews/${i.id}/complete`, { method: "POST", key });
      }
    }));
    await expect.poll(() => stuck.arrivals.length, { timeout: 10_000 }).toBe(16);
    const fast = await receiver(false);
    await a.req("/v1/webhooks", { method: "PUT", key: GLOBEX, body: { url: fast.url, events: ["interview.completed"] } });
    const asked = Date.now();
    await completeOne(a, GLOBEX);
    await expect.poll(() => fast.arrivals.length, { timeout: 5_000 }).toBe(1);
    expect(fast.arrivals[0] - asked).toBeLessThan(2_000);
    // The flooding tenant still holds only its share: 16 attempts on the wire, the rest waiting as pending.
    expect(stuck.arrivals.length).toBe(16);
    const pending = (await a.req("/_sim/webhook-deliveries", { key: keys[0] })).body.data.filter((d: any) => d.status === "pending");
    expect(pending.length).toBeGreaterThan(0);
  }, 60_000);
});

describe("quotas of things kept are per tenant (409)", () => {
  it("stops one tenant at its project cap while the other still creates projects", async () => {
    const a = await api({ tenantLimits: { projects: 3 } });
    const first = (await a.req("/_sim/projects", { method: "POST", key: ACME, body: {} })).body;
    // A project created with a created project's key belongs to the same organisation.
    expect((await a.req("/_sim/projects", { method: "POST", key: first.api_key, body: {} })).status).toBe(201);
    expect((await a.req("/_sim/projects", { method: "POST", key: ACME, body: {} })).status).toBe(201);
    const over = await a.req("/_sim/projects", { method: "POST", key: first.api_key, body: {} });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "conflict_error", message: expect.stringContaining("--max-projects") });
    expect((await a.req("/_sim/projects", { method: "POST", key: GLOBEX, body: {} })).status).toBe(201);
  });

  it("stops one tenant at its planted-data quota while the other still plants", async () => {
    const a = await api({ tenantLimits: { planted: 4 } });
    for (let n = 0; n < 2; n++) expect((await a.req("/_sim/studies", { method: "POST", key: ACME, body: {} })).status).toBe(201);
    const chat = { messages: [{ role: "user", parts: [{ type: "text", text: "a" }] }, { role: "assistant", parts: [{ type: "text", text: "b" }] }] };
    // A chat with two messages is three items: past the quota of 4, and refused whole.
    const newest = (await a.req("/v1/chats?limit=1", { key: ACME })).body.data[0].id;
    const over = await a.req("/_sim/chats", { method: "POST", key: ACME, body: chat });
    expect(over.status).toBe(409);
    expect(over.body.error.message).toContain("--max-planted");
    expect((await a.req("/v1/chats?limit=1", { key: ACME })).body.data[0].id).toBe(newest);
    expect((await a.req("/_sim/studies", { method: "POST", key: ACME, body: {} })).status).toBe(201);
    expect((await a.req("/_sim/chats", { method: "POST", key: GLOBEX, body: chat })).status).toBe(201);
  });

  it("keeps each tenant's webhook events: one tenant's flood of events does not evict the other's", async () => {
    const a = await api({ tenantLimits: { eventsKept: 3 } });
    const hook = await receiver(false);
    for (const key of [ACME, GLOBEX]) await a.req("/v1/webhooks", { method: "PUT", key, body: { url: hook.url, events: ["interview.completed"] } });
    await completeOne(a, GLOBEX);
    const globexAttempt = (await a.req("/_sim/webhook-deliveries", { key: GLOBEX })).body.data[0];
    await completeOne(a, ACME);
    const acmeFirst = (await a.req("/_sim/webhook-deliveries", { key: ACME })).body.data[0];
    for (let n = 0; n < 5; n++) await completeOne(a, ACME);
    expect((await a.req(`/_sim/webhook-deliveries/${globexAttempt.id}/request`, { key: GLOBEX })).status).toBe(200);
    expect((await a.req(`/_sim/webhook-deliveries/${acmeFirst.id}/request`, { key: ACME })).status).toBe(404);
  });
});

describe("things open at once are capped per tenant and per address (429)", () => {
  it("caps a tenant's open event streams, leaves the other tenant its own, and frees a slot when a stream closes", async () => {
    const a = await api({ tenantLimits: { streams: 2 } });
    const hook = await receiver(false);
    for (const key of [ACME, GLOBEX]) await a.req("/v1/webhooks", { method: "PUT", key, body: { url: hook.url, events: ["interview.completed"] } });
    const open = (key: string) => {
      const c = new AbortController();
      return fetch(`${a.server.baseUrl}/_sim/events`, { headers: { authorization: `Bearer ${key}` }, signal: c.signal }).then((res) => ({ res, close: () => c.abort() }));
    };
    const s1 = await open(ACME);
    const s2 = await open(ACME);
    expect([s1.res.status, s2.res.status]).toEqual([200, 200]);
    const over = await a.req("/_sim/events", { key: ACME });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("5");
    expect(over.body.error).toMatchObject({ type: "api_error", message: expect.stringContaining("--max-streams") });
    const g = await open(GLOBEX);
    expect(g.res.status).toBe(200);
    s1.close();
    await expect.poll(async () => {
      const again = await open(ACME);
      again.close();
      return again.res.status;
    }).toBe(200);
    s2.close();
    g.close();
  });

  it("caps a tenant's requests held by Prefer: delay, leaving the other tenant's answered at once", async () => {
    const a = await api({ tenantLimits: { held: 2 } });
    const slow = [0, 1].map(() => a.req("/v1/studies?limit=1", { key: ACME, headers: { prefer: "delay=1500" } }));
    await sleep(200);
    const over = await a.req("/v1/studies?limit=1", { key: ACME, headers: { prefer: "delay=1500" } });
    expect(over.status).toBe(429);
    expect(over.body.error.message).toContain("--max-held");
    const t = Date.now();
    expect((await a.req("/v1/studies?limit=1", { key: GLOBEX, headers: { prefer: "delay=10" } })).status).toBe(200);
    // Before Acme's held requests end: Globex never waited behind them.
    expect(Date.now() - t).toBeLessThan(1_300);
    // Without a delay nothing is held: the tenant's ordinary requests are never refused.
    expect((await a.req("/v1/studies?limit=1", { key: ACME })).status).toBe(200);
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    expect((await a.req("/v1/studies?limit=1", { key: ACME, headers: { prefer: "delay=10" } })).status).toBe(200);
  });

  it("caps held requests per source address across tenants", async () => {
    const a = await api({ tenantLimits: { heldPerAddress: 2 } });
    const slow = [ACME, GLOBEX].map((key) => a.req("/v1/studies?limit=1", { key, headers: { prefer: "delay=1000" } }));
    await sleep(200);
    const over = await a.req("/v1/studies?limit=1", { key: ACME, headers: { prefer: "delay=1000" } });
    expect(over.status).toBe(429);
    expect(over.body.error.message).toContain("--max-held-per-address");
    await Promise.all(slow);
  });

  it("shares the process's work: past its slots a flood waits in its own queue, another team goes first, and a full queue is a 429 while the other waits", async () => {
    // Requests to GET /v1/releases stay at work until the test lets them finish, so slots and queues are seen exactly.
    const gates: Array<{ key: string; open: () => void }> = [];
    const a = await api({
      tenantLimits: { requestSlots: 2, queuedPerTenant: 3 },
      validateResponses: false,
      handlers: {
        listReleases: ({ req }) =>
          new Promise((resolve) => gates.push({ key: String(req.headers.authorization), open: () => resolve({ status: 200, body: { object: "list", data: [], has_more: false } }) })),
      },
    });
    const started = () => gates.map((g) => (g.key.includes("acme") ? "acme" : "globex"));
    // Each URL its own (an identical one would be answered from the response cache once the first is done).
    const acme = Array.from({ length: 5 }, (_, n) => a.req(`/v1/releases?limit=${n + 1}`, { key: ACME }));
    await waitFor("two at work, three queued", () => (gates.length === 2 ? true : undefined));
    // Alone, Acme is never refused: a sixth request waits its turn too.
    const sixth = a.req("/v1/releases?limit=6", { key: ACME });
    await sleep(100);
    // Globex queues behind nobody of its own.
    const globex = a.req("/v1/releases", { key: GLOBEX });
    await sleep(100);
    // Now Acme is past its share while Globex waits: its next request is refused at once, in the envelope, with Retry-After.
    const over = await a.req("/v1/releases?limit=7", { key: ACME });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("1");
    expect(over.body.error.message).toContain("--max-queued-per-tenant");
    expect(started()).toEqual(["acme", "acme"]);
    gates[0].open();
    await waitFor("the freed slot taken", () => (gates.length === 3 ? true : undefined));
    expect(started()).toEqual(["acme", "acme", "globex"]);
    gates[2].open();
    expect((await globex).status).toBe(200);
    // Acme's backlog drains through the slots as they free: each of its six requests is answered.
    let opened = 3;
    gates[1].open();
    while (opened < 7) {
      await waitFor("the next of Acme's backlog at work", () => (gates.length > opened ? true : undefined));
      gates[opened++].open();
    }
    expect((await Promise.all([...acme, sixth])).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(started()).toEqual(["acme", "acme", "globex", "acme", "acme", "acme", "acme"]);
  });

  it("gives a slot back when the client leaves before its request reaches it (during a delay), so later requests are answered", async () => {
    const a = await api({ tenantLimits: { requestSlots: 1 } });
    for (let n = 0; n < 3; n++) {
      const gone = new AbortController();
      const left = fetch(`${a.server.baseUrl}/v1/studies?limit=1`, { headers: { authorization: `Bearer ${ACME}`, prefer: "delay=300" }, signal: gone.signal }).catch(() => "left");
      await sleep(50);
      gone.abort();
      expect(await left).toBe("left");
    }
    await sleep(400);
    // With the slot leaked these would wait forever (each has 5 s).
    for (let n = 0; n < 3; n++) {
      const r = await fetch(`${a.server.baseUrl}/v1/studies?limit=${n + 1}`, { headers: { authorization: `Bearer ${ACME}` }, signal: AbortSignal.timeout(5_000) });
      expect(r.status).toBe(200);
    }
  });
});
