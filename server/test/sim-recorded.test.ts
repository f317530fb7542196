// What the simulation surface plants as the service records it, and how the API shows it: an interview opened through
// its study's link with a query string (reference_id taken from it), a respondent-specific link (respondent_id in the
// webhook), and parts in their recorded form (raw tool transports, transient states, internal runtime parts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

let api: Api;
let key = "";
let study: any;
beforeAll(async () => {
  api = await startApi();
  key = (await api.req("/_sim/projects", { method: "POST", body: {} })).body.api_key;
  study = (await api.req("/_sim/studies", { method: "POST", key, body: { name: "Links" } })).body;
});
afterAll(() => api.server.close());

const sep = () => (String(study.interview_link).includes("?") ? "&" : "?");

describe("interviews opened through a link", () => {
  it("takes reference_id from the study's interview_link query string", async () => {
    const made = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, interview_link: `${study.interview_link}${sep()}reference_id=user_42&utm=x`, hold: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.reference_id).toBe("user_42");
  });

  it("refuses another study's link, a link with reference_id given twice, and a link that is not the study's", async () => {
    const other = (await api.req("/_sim/studies", { method: "POST", key, body: { name: "Other" } })).body;
    for (const body of [
      { study_id: study.id, interview_link: `${other.interview_link}?reference_id=a` },
      { study_id: study.id, interview_link: `${study.interview_link}${sep()}reference_id=a`, reference_id: "b" },
      { study_id: study.id, interview_link: "https://elsewhere.example.com/s/1?reference_id=a" },
    ]) {
      const reply = await api.req("/_sim/interviews", { method: "POST", key, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.details[0].field).toBe("interview_link");
    }
  });

  it("carries respondent_id into the signed webhook payload, and null without one", async () => {
    await api.req("/v1/webhooks", { method: "PUT", key, body: { url: "https://hooks.example.com/links", events: ["interview.completed"] } });
    const personal = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, respondent_id: "resp_7" } });
    const plain = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id } });
    const payloadOf = async (id: string) => {
      for (let i = 0; i < 100; i++) {
        const log = await api.req(`/_sim/webhook-deliveries?interview_id=${id}`, { key });
        const attempt = log.body.data[0];
        if (attempt) return JSON.parse((await api.req(`/_sim/webhook-deliveries/${attempt.id}/request`, { key })).body.body).data;
        await sleep(50);
      }
      throw new Error(`no delivery of ${id}`);
    };
    expect((await payloadOf(personal.body.id)).respondent_id).toBe("resp_7");
    expect((await payloadOf(plain.body.id)).respondent_id).toBeNull();
  });
});

describe("parts as recorded", () => {
  it("normalizes raw tool transports, reports transient states as input_available and drops internal parts", async () => {
    const parts = [
      { type: "text", text: "before" },
      { type: "compaction", summary: "s" },
      { type: "server_tool_use", id: "t1", name: "web_search", summary: "search", input: { q: 1 }, state: "approval_requested" },
      { type: "web_search_tool_result", tool_use_id: "t1", content: ["r"], is_error: false },
      { type: "container_upload", file_id: "f" },
      { type: "mcp_tool_use", id: "t2", name: "crm", summary: "lookup", input: {}, state: "input_streaming" },
      { type: "mcp_tool_result", tool_use_id: "t2", content: null, is_error: true },
      { type: "hidden_branch", branch_id: "b", parts: [] },
    ];
    const planted = await api.req("/_sim/chats", { method: "POST", key, body: { messages: [{ role: "assistant", parts }] } });
    expect(planted.status, planted.text).toBe(201);
    const [message] = (await api.req(`/v1/chats/${planted.body.id}/messages`, { key })).body.data;
    expect(message.parts).toEqual([
      { type: "text", text: "before" },
      { type: "tool_use", id: "t1", name: "web_search", summary: "search", input: { q: 1 }, state: "input_available" },
      { type: "tool_result", tool_use_id: "t1", content: ["r"], is_error: false },
      { type: "tool_use", id: "t2", name: "crm", summary: "lookup", input: {}, state: "input_available" },
      { type: "tool_result", tool_use_id: "t2", content: null, is_error: true },
    ]);
  });

  it("refuses a part type the service does not record", async () => {
    const reply = await api.req("/_sim/chats", { method: "POST", key, body: { messages: [{ role: "assistant", parts: [{ type: "hologram" }] }] } });
    expect(reply.status).toBe(400);
  });
});

describe("messages that are not visible, inside a visible chat", () => {
  it("a hidden-branch message and one made only of internal parts are not listed, not counted and not cursors", async () => {
    const planted = await api.req("/_sim/chats", {
      method: "POST", key, body: {
        title: "Visibility", messages: [
          { role: "user", parts: [{ type: "text", text: "seen" }] },
          { role: "assistant", parts: [{ type: "text", text: "a discarded branch" }], hidden: true },
          { role: "assistant", parts: [{ type: "compaction", summary: "earlier turns" }, { type: "container_upload", file_id: "f1" }] },
          { role: "assistant", parts: [{ type: "text", text: "also seen" }, { type: "compaction", summary: "x" }] },
        ],
      },
    });
    expect(planted.status, planted.text).toBe(201);
    const [first, branch, internal, last] = planted.body.message_ids;
    const chat = await api.req(`/v1/chats/${planted.body.id}`, { key });
    expect(chat.body.message_count).toBe(2);
    const list = await api.req(`/v1/chats/${planted.body.id}/messages`, { key });
    expect(list.body.data.map((m: any) => m.id)).toEqual([first, last]);
    expect(list.body.data[1].parts).toEqual([{ type: "text", text: "also seen" }]);
    for (const id of [branch, internal]) {
      const cursor = await api.req(`/v1/chats/${planted.body.id}/messages?starting_after=${id}`, { key });
      expect(cursor.status).toBe(400);
      expect(cursor.body.error.message).toBe(`No such message: ${id}`);
    }
    const after = await api.req(`/v1/chats/${planted.body.id}/messages?starting_after=${first}`, { key });
    expect(after.body.data.map((m: any) => m.id)).toEqual([last]);
  });
});

describe("abandoned interviews", () => {
  it("keep their status, never complete (409), count as used, and are never delivered", async () => {
    await api.req("/v1/webhooks", { method: "PUT", key, body: { url: "https://hooks.example.com/abandon", events: ["interview.completed"] } });
    const held = (await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, hold: true } })).body;
    const left = await api.req(`/_sim/interviews/${held.id}/abandon`, { method: "POST", key });
    expect(left.status, left.text).toBe(200);
    expect(left.body.status).toBe("started");
    const complete = await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST", key });
    expect(complete.status).toBe(409);
    expect(complete.body.error.message).toBe(`Interview ${held.id} was abandoned: it never completes`);
    expect((await api.req(`/v1/interviews/${held.id}`, { key })).body.status).toBe("started");
    const log = await api.req(`/_sim/webhook-deliveries?interview_id=${held.id}`, { key });
    expect(log.body.data).toEqual([]);
    const again = await api.req(`/_sim/interviews/${held.id}/abandon`, { method: "POST", key });
    expect(again.status).toBe(200);
  });

  it("abandoning a completed interview is a 409, and an unknown one a 404", async () => {
    const held = (await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, hold: true } })).body;
    await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST", key });
    expect((await api.req(`/_sim/interviews/${held.id}/abandon`, { method: "POST", key })).status).toBe(409);
    expect((await api.req("/_sim/interviews/00000000-0000-4000-8000-000000000000/abandon", { method: "POST", key })).status).toBe(404);
  });
});

describe("what a message was recorded without", () => {
  it("reads a file recorded with no name as filename null, and citations recorded as an empty list as sources null", async () => {
    const chat = await api.req("/_sim/chats", { method: "POST", key, body: { title: "Nothing given", messages: [
      { role: "user", parts: [{ type: "file", url: "https://files.example.com/x.bin", media_type: "application/octet-stream" }] },
      { role: "assistant", parts: [{ type: "text", text: "no citations" }], sources: [] },
    ] } });
    expect(chat.status, chat.text).toBe(201);
    const list = await api.req(`/v1/chats/${chat.body.id}/messages`, { key });
    expect(list.body.data[0].parts).toEqual([{ type: "file", url: "https://files.example.com/x.bin", media_type: "application/octet-stream", filename: null }]);
    expect(list.body.data[1].sources).toBeNull();
  });
});
