// Chats and messages: hidden chats never appear, message_count counts visible messages, parts are
// normalised, internal parts and metadata are stripped, and the seed's 400 messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, expected } from "./oracle.ts";
import { NEVER, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const want = expected(acme.id);
const PUBLIC_TYPES = ["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"];

describe("chats", () => {
  it("lists visible chats only, newest first, without message_count", async () => {
    const { items } = await api.walk("/v1/chats", 100);
    expect(items.map((c) => c.id)).toEqual(want.chats.map((c) => c.id));
    expect(items.some((c) => "message_count" in c || c.source === "eval" || c.source === "releases")).toBe(false);
  });

  it("hidden chats (internal, evaluation, release-generated) are a 404 everywhere", async () => {
    expect(new Set(want.hiddenChats.map((c) => c.visibility))).toEqual(new Set(["internal", "evaluation", "release"]));
    for (const c of want.hiddenChats) {
      for (const path of [`/v1/chats/${c.id}`, `/v1/chats/${c.id}/messages`]) {
        const res = await api.req(path);
        expect(res.status).toBe(404);
        expect(res.body.error.message).toBe(`No such chat: ${c.id}`);
      }
    }
  });

  it("message_count equals the visible messages a full walk returns", async () => {
    for (const c of want.chats.slice(0, 15)) {
      const chat = await api.req(`/v1/chats/${c.id}`);
      const { items } = await api.walk(`/v1/chats/${c.id}/messages`, 100);
      expect(chat.body.message_count).toBe(items.length);
      expect(items.length).toBe(want.messagesOf(c.id).length);
    }
  });

  it("the list order is by created_at, so it stays stable when a chat's updated_at changes", () => {
    const byUpdated = [...want.chats].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1)).map((c) => c.id);
    expect(byUpdated).not.toEqual(want.chats.map((c) => c.id));
  });
});

describe("messages", () => {
  const chatsWithMessages = want.chats.filter((c) => want.messagesOf(c.id).length > 0);

  it("hidden-branch messages never appear", async () => {
    const hidden = new Set(want.hiddenMessages.map((m) => m.id));
    expect(hidden.size).toBeGreaterThan(0);
    for (const c of chatsWithMessages) {
      const { items } = await api.walk(`/v1/chats/${c.id}/messages`, 100);
      expect(items.filter((m) => hidden.has(m.id))).toEqual([]);
    }
  });

  it("parts are the six public types; tool transports are normalised and transient states become input_available", async () => {
    const seenTypes = new Set<string>();
    for (const c of chatsWithMessages) {
      const { items } = await api.walk(`/v1/chats/${c.id}/messages`, 100);
      for (const m of items) {
        expect(Object.keys(m).sort()).toEqual(["chat_id", "completed_at", "created_at", "feedback", "id", "object", "parts", "role", "sources", "usage"]);
        if (m.role !== "assistant") expect(m.usage).toBeNull();
        for (const p of m.parts) {
          seenTypes.add(p.type);
          expect(PUBLIC_TYPES).toContain(p.type);
          if (p.type === "tool_use") expect(["input_available", "output_available", "output_error", "output_denied"]).toContain(p.state);
        }
      }
    }
    expect([...seenTypes].sort()).toEqual([...PUBLIC_TYPES].sort());
  });

  it("each raw message maps part by part: internal parts dropped, nothing else lost", async () => {
    const internal = new Set(["compaction", "container_upload", "hidden_branch"]);
    for (const c of chatsWithMessages.slice(0, 10)) {
      const { items } = await api.walk(`/v1/chats/${c.id}/messages`, 100);
      const raw = want.messagesOf(c.id);
      items.forEach((m, n) => {
        const kept = raw[n].parts.filter((p) => !internal.has(p.type));
        expect(m.parts.length).toBe(kept.length);
        kept.forEach((p, k) => {
          const normal = p.type.endsWith("tool_use") ? "tool_use" : p.type.endsWith("tool_result") ? "tool_result" : p.type;
          expect(m.parts[k].type).toBe(normal);
        });
      });
    }
  });

  it("400 Invalid parameters lists one issue per offending field", async () => {
    const c = chatsWithMessages[0];
    const res = await api.req(`/v1/chats/${c.id}/messages?limit=0&starting_after=nope`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("Invalid parameters");
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(["limit", "starting_after"]);
  });

  // The seed's ids are UUID strings: a visible message's id as a URN, in braces or without its hyphens is not one (ajv's
  // uuid format took the URN and answered "No such message: urn:uuid:..."). A chat's id in those forms is not one either.
  it("400 Invalid parameters for a visible message's id written as a URN, in braces or without hyphens; a chat's id so written is refused too", async () => {
    const c = chatsWithMessages[0];
    const id = (await api.req(`/v1/chats/${c.id}/messages?limit=1`)).body.data[0].id as string;
    for (const form of [`urn:uuid:${id}`, `{${id}}`, id.replace(/-/g, "")]) {
      const res = await api.req(`/v1/chats/${c.id}/messages?starting_after=${encodeURIComponent(form)}`);
      expect(res.status, form).toBe(400);
      expect(res.body.error, form).toMatchObject({ message: "Invalid parameters", details: [{ location: "query", field: "starting_after" }] });
    }
    const chat = await api.req(`/v1/chats/${encodeURIComponent(`urn:uuid:${c.id}`)}`);
    expect(chat.status).toBe(400);
    expect(chat.body.error.details).toEqual([expect.objectContaining({ location: "path", field: "id" })]);
    // Upper case is the same UUID (RFC 9562 reads hex digits in either case): a cursor, not a malformed one.
    expect((await api.req(`/v1/chats/${c.id}/messages?starting_after=${id.toUpperCase()}`)).body.error?.message).not.toBe("Invalid parameters");
  });

  it("400 No such message for a UUID that is not a visible message of the chat", async () => {
    const c = chatsWithMessages[0];
    for (const id of [NEVER, want.hiddenMessages[0].id]) {
      const res = await api.req(`/v1/chats/${c.id}/messages?starting_after=${id}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`No such message: ${id}`);
    }
  });
});
