// Chats and messages planted with any visible field value, null included (POST /_sim/chats), as the API shows them:
// the seed's representation of each (null titles and sources, streaming messages with a null completed_at, feedback,
// usage only on assistant messages), and chats at chosen instants in the list's order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANCHOR_MS, startApi, type Api } from "./helpers.ts";

let api: Api;
let key = "";
beforeAll(async () => {
  api = await startApi();
  key = (await api.req("/_sim/projects", { method: "POST", body: {} })).body.api_key;
});
afterAll(() => api.server.close());

const usage = { input_tokens: 10, output_tokens: null, cache_read_input_tokens: 0, cache_creation_input_tokens: null, cost_usd: 0.0012 };
const text = (t: string) => [{ type: "text", text: t }];

describe("planted chat and message fields", () => {
  it("shows null, streaming, feedback and usage as planted, within the seed's rules", async () => {
    const planted = await api.req("/_sim/chats", {
      method: "POST", key,
      body: {
        title: null, source: null, is_streaming: true,
        messages: [
          { role: "user", parts: text("q"), feedback: "negative", usage },
          { role: "assistant", parts: text("a"), sources: null, feedback: "positive", usage },
          { role: "assistant", parts: text("…"), streaming: true },
          { role: "system", parts: text("s"), usage },
        ],
      },
    });
    expect(planted.status, planted.text).toBe(201);
    const chat = (await api.req(`/v1/chats/${planted.body.id}`, { key })).body;
    expect(chat).toMatchObject({ title: null, source: null, is_streaming: true, message_count: 4 });
    const messages = (await api.req(`/v1/chats/${planted.body.id}/messages`, { key })).body.data;
    expect(messages.map((m: any) => [m.role, m.feedback, m.usage, m.sources, m.completed_at === null])).toEqual([
      ["user", "negative", null, null, false],
      ["assistant", "positive", usage, null, false],
      ["assistant", null, null, null, true],
      ["system", null, null, null, false],
    ]);
  });

  it("plants chats at chosen instants, listed newest first; never in the future", async () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const older = await api.req("/_sim/chats", { method: "POST", key, body: { title: "older", created_at: at(ANCHOR_MS - 86_400_000), messages: [] } });
    const newer = await api.req("/_sim/chats", { method: "POST", key, body: { title: "newer", created_at: at(ANCHOR_MS - 3_600_000), messages: [] } });
    const list = (await api.req("/v1/chats?limit=100", { key })).body.data.map((c: any) => c.id);
    expect(list.indexOf(newer.body.id)).toBeLessThan(list.indexOf(older.body.id));
    expect((await api.req(`/v1/chats/${older.body.id}`, { key })).body.created_at).toBe(at(ANCHOR_MS - 86_400_000));
    const future = await api.req("/_sim/chats", { method: "POST", key, body: { created_at: at(ANCHOR_MS + 60_000), messages: [] } });
    expect(future.status).toBe(400);
  });

  it("plants messages at chosen instants, ties included: each listed once at every page size, oldest first; the chat's updated_at their latest", async () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const t = ANCHOR_MS - 7_200_000;
    const m = (ms: number, s: string) => ({ role: "user", parts: text(s), created_at: at(ms) });
    const planted = await api.req("/_sim/chats", { method: "POST", key, body: { created_at: at(t - 1000), messages: [m(t + 1, "newer"), m(t, "tie 1"), m(t, "tie 2"), m(t, "tie 3"), m(t - 1, "older")] } });
    expect(planted.status, planted.text).toBe(201);
    const [newer, ...rest] = planted.body.message_ids;
    const older = rest.pop();
    const chat = (await api.req(`/v1/chats/${planted.body.id}`, { key })).body;
    expect(chat.updated_at).toBe(at(t + 1));
    for (const limit of [1, 2, 3, 4]) {
      const walk = (await api.walk(`/v1/chats/${planted.body.id}/messages`, limit, key)).items;
      expect(walk.map((x: any) => x.id).length, `limit ${limit}`).toBe(5);
      expect(walk[0].id).toBe(older);
      expect(new Set(walk.slice(1, 4).map((x: any) => x.id))).toEqual(new Set(rest));
      expect(walk[4].id).toBe(newer);
      expect(walk.slice(1, 4).map((x: any) => [x.created_at, x.completed_at])).toEqual(Array(3).fill([at(t), at(t)]));
    }
    // Never before the chat, never in the future: each offending message named.
    const bad = await api.req("/_sim/chats", { method: "POST", key, body: { created_at: at(t), messages: [m(t - 1, "before"), m(t, "ok"), m(ANCHOR_MS + 60_000, "future")] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field)).toEqual(["messages[0].created_at", "messages[2].created_at"]);
  });

  it("plants a message that finished streaming after it was recorded: completed_at as given, the chat's updated_at its latest", async () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const t = ANCHOR_MS - 3_600_000;
    const planted = await api.req("/_sim/chats", { method: "POST", key, body: { created_at: at(t), messages: [
      { role: "user", parts: text("q"), created_at: at(t + 1_000) },
      { role: "assistant", parts: text("a"), created_at: at(t + 2_000), completed_at: at(t + 9_500) },
    ] } });
    expect(planted.status, planted.text).toBe(201);
    const messages = (await api.req(`/v1/chats/${planted.body.id}/messages`, { key })).body.data;
    expect(messages.map((x: any) => [x.created_at, x.completed_at])).toEqual([[at(t + 1_000), at(t + 1_000)], [at(t + 2_000), at(t + 9_500)]]);
    expect((await api.req(`/v1/chats/${planted.body.id}`, { key })).body.updated_at).toBe(at(t + 9_500));
    // Never before the message, never in the future, never while it streams: each named.
    const bad = await api.req("/_sim/chats", { method: "POST", key, body: { created_at: at(t), messages: [
      { role: "assistant", parts: text("early"), created_at: at(t + 2_000), completed_at: at(t + 1_999) },
      { role: "assistant", parts: text("ok"), completed_at: at(t + 5_000) },
      { role: "assistant", parts: text("future"), completed_at: at(ANCHOR_MS + 60_000) },
      { role: "assistant", parts: text("streaming"), streaming: true, completed_at: at(t + 5_000) },
    ] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field)).toEqual(["messages[0].completed_at", "messages[2].completed_at", "messages[3].completed_at"]);
  });
});
