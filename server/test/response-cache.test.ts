// The response cache is invisible: a cached answer is byte-identical to a fresh one, a write through the
// simulation surface shows at once in every read, and the cache stays within its bounds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseCache } from "../src/http/response-cache.ts";
import { ACME, startApi, type Api } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

let cached: Api;
let fresh: Api;
beforeAll(async () => {
  cached = await startApi({ simProcessingMs: 40 });
  fresh = await startApi({ responseCache: false });
});
afterAll(async () => {
  await cached.server.close();
  await fresh.server.close();
});

describe("response cache", () => {
  it("answers byte-identically to a server without it, on every read operation", async () => {
    const chats = (await fresh.req("/v1/chats?limit=3")).body.data;
    const interviews = (await fresh.req("/v1/interviews?limit=2")).body.data;
    const studies = (await fresh.req("/v1/studies")).body.data;
    const paths = [
      "/v1/studies", `/v1/studies/${studies[0].id}`, "/v1/interviews?limit=100", "/v1/interviews?status=completed&limit=7", `/v1/interviews/${interviews[0].id}`,
      "/v1/releases?status=active", "/v1/chats", `/v1/chats/${chats[0].id}`, `/v1/chats/${chats[0].id}/messages?limit=5`,
    ];
    for (const path of paths) {
      const first = await cached.req(path);
      const second = await cached.req(path);
      const reference = await fresh.req(path);
      expect(second.text, path).toBe(reference.text);
      expect(first.text, path).toBe(reference.text);
      expect(second.headers.get("content-type")).toBe(reference.headers.get("content-type"));
    }
  });

  it("never serves another project's cached answer", async () => {
    const acme = await cached.req("/v1/chats");
    const globex = await cached.req("/v1/chats", { key: "svc_live_globex_0123456789abcdef0123456789abcdef" });
    expect(globex.text).not.toBe(acme.text);
    expect((await cached.req("/v1/chats", { key: "svc_live_nobody" })).status).toBe(401);
    expect((await cached.req("/v1/chats?limit=0")).status).toBe(400);
  });

  it("shows a simulated interview at once: in lists, retrieval and study usage", async () => {
    const study = (await cached.req("/v1/studies")).body.data.find((s: any) => s.accepting_responses);
    const before = await cached.req(`/v1/studies/${study.id}`);
    await cached.req("/v1/interviews?limit=1");
    const created = await cached.req("/_sim/interviews", { method: "POST", body: { study_id: study.id }, key: ACME });
    expect(created.status).toBe(201);
    const list = await cached.req("/v1/interviews?limit=1");
    expect(list.body.data[0].id).toBe(created.body.id);
    const after = await cached.req(`/v1/studies/${study.id}`);
    expect(after.body.limits.weekly.used).toBe(before.body.limits.weekly.used + 1);
    for (let i = 0; i < 100 && (await cached.req(`/v1/interviews/${created.body.id}`)).body.status !== "completed"; i++) await sleep(20);
    expect((await cached.req(`/v1/interviews/${created.body.id}`)).body.status).toBe("completed");
    expect((await cached.req("/v1/interviews?limit=1")).body.data[0].status).toBe("completed");
  });
});

describe("ResponseCache bounds", () => {
  it("evicts entries not read since the last sweep first (second chance), past its entry and byte limits", () => {
    const cache = new ResponseCache(3, 1000);
    const body = (n: number) => ({ status: 200, body: Buffer.alloc(n) });
    cache.set("a", body(10));
    cache.set("b", body(10));
    cache.set("c", body(10));
    cache.get("a");
    cache.set("d", body(10));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    cache.set("e", body(100));
    cache.set("f", body(100));
    expect(cache.size).toBeLessThanOrEqual(3);
    cache.set("huge", body(500));
    expect(cache.get("huge")).toBeUndefined();
  });
});
