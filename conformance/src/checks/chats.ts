/**
 * chats: hidden chats (internal sources `eval`, `releases`) never appear; message_count equals the messages a
 * full walk returns; parts are the six public types with the four public tool states and no undeclared
 * fields; and the seed's two 400 messages of the messages endpoint.
 */
import { conforms, type Check } from "../check.ts";
import { messagesOf, NEVER_ID, snapshot } from "../data.ts";
import { expectThat } from "../http.ts";

const PART_TYPES = ["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"];
const STATES = ["input_available", "output_available", "output_error", "output_denied"];

export const chatsCheck: Check = {
  name: "chats",
  description: "hidden chats never appear, message_count is exact, message parts are public shapes, the messages 400s",
  async run(ctx) {
    const { chats } = await snapshot(ctx.http);
    const internal = chats.find((c) => c.source === "eval" || c.source === "releases");
    if (internal) expectThat(false, `chat ${internal.id} with internal source ${internal.source} is listed`, await ctx.http.req("/v1/chats?limit=100"));
    if (chats.some((c) => "message_count" in c)) expectThat(false, "chat list items carry message_count, a detail-only field", await ctx.http.req("/v1/chats?limit=100"));
    for (const chat of chats) {
      const detail = await ctx.http.req(`/v1/chats/${chat.id}`);
      conforms(ctx, detail, `GET /v1/chats/${chat.id}`);
      const messages = await messagesOf(ctx.http, chat.id);
      const walk = `/v1/chats/${chat.id}/messages?limit=100`;
      expectThat(detail.body.message_count === messages.length, `chat ${chat.id}: message_count ${detail.body.message_count} but a full walk returns ${messages.length} messages`, detail);
      for (const m of messages) {
        const problems: string[] = [];
        if (m.chat_id !== chat.id) problems.push(`message ${m.id} listed under chat ${chat.id} says chat_id ${m.chat_id}`);
        for (const p of m.parts) {
          if (!PART_TYPES.includes(p.type)) problems.push(`message ${m.id} has a part of type ${p.type}`);
          if (p.type === "tool_use" && !STATES.includes(p.state)) problems.push(`message ${m.id}: tool_use state ${p.state} is not public`);
        }
        problems.push(...ctx.contract.undeclared({ $ref: "#/components/schemas/Message" }, m, "").map((u) => `message ${m.id}: ${u}`));
        if (problems.length) expectThat(false, problems.join("; "), await ctx.http.req(walk));
      }
    }
    const withMessages = chats.find((c) => c.id);
    if (withMessages) {
      const bad = await ctx.http.req(`/v1/chats/${withMessages.id}/messages?limit=0&starting_after=nope`);
      expectThat(bad.status === 400 && bad.body?.error?.message === "Invalid parameters", `invalid limit and cursor: expected 400 "Invalid parameters", got ${bad.status} ${JSON.stringify(bad.body?.error?.message)}`, bad);
      const fields = (bad.body.error.details ?? []).map((d: any) => d.field).sort();
      expectThat(fields.join() === "limit,starting_after", `details must list one issue per offending field (limit, starting_after), got ${JSON.stringify(fields)}`, bad);
      const unknown = await ctx.http.req(`/v1/chats/${withMessages.id}/messages?starting_after=${NEVER_ID}`);
      expectThat(unknown.status === 400 && unknown.body?.error?.message === `No such message: ${NEVER_ID}`, `an unknown message cursor: expected 400 "No such message: ${NEVER_ID}", got ${unknown.status} ${JSON.stringify(unknown.body?.error?.message)}`, unknown);
    }
    const hidden = await ctx.http.req(`/v1/chats/${NEVER_ID}/messages`);
    expectThat(hidden.status === 404, `messages of an unknown chat answered ${hidden.status}`, hidden);
  },
};
