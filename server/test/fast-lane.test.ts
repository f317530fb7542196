// The fast lane (router.ts) answers a repeated cached read ahead of Express: it must be invisible. The same bytes and
// headers as the full path; and everything a read can ask for beyond its cached body (a fault, CORS, a queue for a
// slot, a change of the data, a bad key) still happens. Each case reads the URL once first, so the next is a hit.
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, startApi, type Api } from "./helpers.ts";

const lines: any[] = [];
const logger = pino({ level: "info" }, new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
let api: Api;
let fresh: Api;
beforeAll(async () => {
  // One slot: concurrent reads queue for it, so the lane's wait for a turn is taken.
  api = await startApi({ logger, tenantLimits: { requestSlots: 1 } });
  fresh = await startApi({ responseCache: false });
});
afterAll(async () => {
  await api.server.close();
  await fresh.server.close();
});

const headersOf = (h: Headers) => Object.fromEntries([...h.entries()].filter(([k]) => k !== "date"));

describe("fast lane", () => {
  it("answers a hit with the full path's bytes and headers", async () => {
    for (const path of ["/v1/studies?limit=3", "/v1/chats", "/v1/interviews?limit=100&status=completed", "/v1/releases"]) {
      const miss = await api.req(path);
      const hit = await api.req(path);
      const reference = await fresh.req(path);
      expect(hit.text, path).toBe(reference.text);
      expect(miss.text, path).toBe(reference.text);
      expect(headersOf(hit.headers), path).toEqual(headersOf(miss.headers));
      expect(headersOf(hit.headers), path).toEqual(headersOf(reference.headers));
    }
  });

  it("logs each request once, hit or not", async () => {
    lines.length = 0;
    await api.req("/v1/studies?limit=4");
    await api.req("/v1/studies?limit=4");
    await api.req("/v1/studies?limit=4", { key: "svc_live_nobody" });
    await new Promise((r) => setTimeout(r, 50));
    const logged = lines.filter((l) => l.msg === "request completed" && l.url === "/api/v1/studies?limit=4");
    expect(logged.map((l) => l.status)).toEqual([200, 200, 401]);
  });

  it("still refuses a bad key, applies a Prefer fault and sets CORS headers on a hot URL", async () => {
    await api.req("/v1/chats?limit=2");
    expect((await api.req("/v1/chats?limit=2", { key: "svc_live_nobody" })).status).toBe(401);
    expect((await api.req("/v1/chats?limit=2", { key: null })).status).toBe(401);
    expect((await api.req("/v1/chats?limit=2", { headers: { prefer: "fault=503" } })).status).toBe(503);
    const cors = await api.req("/v1/chats?limit=2", { headers: { origin: "https://app.example.com" } });
    expect(cors.status).toBe(200);
    expect(cors.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("applies a project's fault settings to a hot URL, and serves it again once they are gone", async () => {
    await api.req("/v1/studies?limit=1");
    expect((await api.req("/v1/studies?limit=1")).status).toBe(200);
    expect((await api.req("/_sim/faults", { method: "PUT", body: { rate: 1, kinds: ["500"], operations: ["listStudies"], seed: 1 } })).status).toBe(200);
    expect((await api.req("/v1/studies?limit=1")).status).toBe(500);
    expect((await api.req("/_sim/faults", { method: "DELETE" })).status).toBe(204);
    expect((await api.req("/v1/studies?limit=1")).status).toBe(200);
  });

  it("serves reads queued for the one slot, and never a body older than a write before them", async () => {
    const path = "/v1/interviews?limit=1";
    await api.req(path);
    const burst = await Promise.all(Array.from({ length: 30 }, () => api.req(path)));
    expect(new Set(burst.map((r) => `${r.status} ${r.text}`)).size).toBe(1);
    const study = (await api.req("/v1/studies")).body.data.find((s: any) => s.accepting_responses);
    const created = await api.req("/_sim/interviews", { method: "POST", body: { study_id: study.id }, key: ACME });
    expect(created.status).toBe(201);
    const after = await Promise.all(Array.from({ length: 10 }, () => api.req(path)));
    for (const r of after) expect(r.body.data[0].id).toBe(created.body.id);
  });
});
