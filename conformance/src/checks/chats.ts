/**
 * chats: hidden chats never appear (listed chats with internal sources, every release's chat, and with --sim
 * planted internal, evaluation and release chats); message_count equals the messages a full walk returns;
 * parts are the six public types with the four public tool states; and the seed's two 400s of messages.
 */
import { internallySourced, partProblem, internalKeys } from "../judge/shown.ts";
import type { Check, Ctx } from "../check.ts";
import { messagesOf, NEVER_ID, snapshot } from "../data.ts";
import { invalidParametersVerdicts, messageErrorRules, noSuchMessageVerdicts } from "../judge/messages-errors.ts";
import { contract, rules, seed } from "../rules.ts";

const own = rules("chats", {
  "hidden-not-listed": seed("Chat: internal, evaluation and release-generated chats are excluded everywhere", "no listed chat has an internal source (eval, releases), and no hidden chat is ever listed", ["chat.visible-only", "chat.internal-sources", "service.chat-public"]),
  "hidden-404": seed("Errors 2", "an internal, evaluation or release-generated chat, or one whose source is internal (eval, releases), answers 404 on /v1/chats/:id and /v1/chats/:id/messages", ["errors.hidden-chat-404", "chat.visible-only", "endpoints.get-chat"]),
  "release-chats": seed("Release: chat_id; Chat: release-generated chats excluded; Errors 2", "every release's chat_id answers 404 on /v1/chats/:id and its messages, and is never listed", ["release.chat-id", "service.release-chat", "chat.visible-only", "errors.hidden-chat-404"]),
  "message-count": seed("Chat: message_count, visible messages only", "message_count equals the number of messages a full walk returns", ["chat.message-count"]),
  "chat-id": seed("Message: chat_id", "every message listed under a chat carries that chat's id", ["message.chat-id"]),
  "public-parts": seed("Message: part types; tool_use.state", "parts are the six public types, tool_use.state is one of the four public states, and a redacted_thinking part has no other field than its type", ["part.discriminated", "part.tool-state", "states.tool-use", "part.internal-hidden", "part.redacted-thinking"]),
  "unknown-chat": seed("Errors 2", "messages of a chat that does not exist answer 404", ["errors.hidden-chat-404", "errors.404", "endpoints.get-chat"]),
  "no-metadata": seed("Message: internal metadata (session ids, model names, branching info) are never returned", "no chat, message, part, source or usage carries a field naming a session, a model or a branch, at any depth (a tool's input and result excepted: their shapes are the tool's)", ["part.internal-hidden", "service.chat-public"]),
  "message-fields": contract("closed response schemas", "messages carry no field the contract does not declare (internal metadata never leaks)"),
});
const r = { ...own, ...messageErrorRules };

/** With --sim or --states, plants one chat of each hidden kind and probes that they stay hidden. */
async function plantedHidden(ctx: Ctx): Promise<void> {
  const hidden = new Set<string>();
  if (!ctx.options.sim && !ctx.options.states) return ctx.untested("planted internal, evaluation and release chats", "needs --sim or --states");
  // Each hidden kind by its visibility, and an otherwise visible chat whose source alone is internal (eval, releases).
  const kinds = [["internal"], ["evaluation"], ["release"], ["visible", "eval"], ["visible", "releases"]] as const;
  for (const [visibility, source] of kinds) {
    const what = source ? `visible chat with source ${source}` : `${visibility} chat`;
    const { id } = await ctx.states.plantChat({ title: ctx.states.name(`hidden ${source ?? visibility} probe`), visibility, ...(source ? { source } : {}), messages: [{ role: "user", parts: [{ type: "text", text: "internal" }] }] });
    const detail = await ctx.http.req(`/v1/chats/${id}`);
    ctx.expect(r["hidden-404"], detail.status === 404, `a planted ${what} answered ${detail.status} on GET /v1/chats/${id}`, detail);
    const messages = await ctx.http.req(`/v1/chats/${id}/messages`);
    ctx.expect(r["hidden-404"], messages.status === 404, `a planted ${what}'s messages answered ${messages.status}`, messages);
    hidden.add(id);
  }
  const after = (await ctx.http.walk("/v1/chats", 100)).items.map((c: any) => c.id);
  const shown = after.filter((id: string) => hidden.has(id));
  ctx.expect(r["hidden-not-listed"], shown.length === 0, `hidden chat(s) listed after planting: ${shown.join(", ")}`);
}

export const chatsCheck: Check = {
  name: "chats",
  description: "hidden and release chats never appear, message_count is exact, message parts are public shapes, the messages 400s",
  rules: r,
  operations: ["listChats", "getChat", "listChatMessages"],
  async run(ctx) {
    const { chats, releases } = await snapshot(ctx.http);
    const internal = internallySourced(chats)[0];
    ctx.expect(r["hidden-not-listed"], !internal, `chat ${internal?.id} with internal source ${internal?.source} is listed`, internal ? await ctx.http.req("/v1/chats?limit=100") : undefined);

    const listedIds = new Set(chats.map((c) => c.id));
    const releaseChats = [...new Set(releases.map((x) => x.chat_id).filter((id) => typeof id === "string"))];
    for (const id of releaseChats) {
      ctx.expect(r["release-chats"], !listedIds.has(id), `release chat ${id} is listed by GET /v1/chats`);
      const detail = await ctx.http.req(`/v1/chats/${id}`);
      ctx.expect(r["release-chats"], detail.status === 404, `GET /v1/chats/${id} (a release's chat_id) answered ${detail.status}, not 404`, detail);
      const messages = await ctx.http.req(`/v1/chats/${id}/messages`);
      ctx.expect(r["release-chats"], messages.status === 404, `GET /v1/chats/${id}/messages (a release's chat_id) answered ${messages.status}, not 404`, messages);
    }
    if (!releaseChats.length) ctx.untested("release chats stay hidden", "the project has no release");

    for (const chat of chats) {
      const detail = await ctx.http.req(`/v1/chats/${chat.id}`);
      ctx.conforms(detail, `GET /v1/chats/${chat.id}`);
      const messages = await messagesOf(ctx.http, chat.id);
      const leaked = [...internalKeys(chat, "listed chat"), ...internalKeys(detail.body, "chat"), ...messages.flatMap((m) => internalKeys(m, `message ${m?.id}`))];
      ctx.expect(r["no-metadata"], leaked.length === 0, `chat ${chat.id} returns internal metadata: ${leaked.slice(0, 6).join(", ")}`, leaked.length ? await ctx.http.req(`/v1/chats/${chat.id}/messages?limit=100`) : detail);
      ctx.expect(r["message-count"], detail.body?.message_count === messages.length, `chat ${chat.id}: message_count ${detail.body?.message_count} but a full walk returns ${messages.length} messages`, detail);
      const walk = `/v1/chats/${chat.id}/messages?limit=100`;
      for (const m of messages) {
        ctx.expect(r["chat-id"], m.chat_id === chat.id, `message ${m.id} listed under chat ${chat.id} says chat_id ${m.chat_id}`, undefined, { chat: chat.id, message: m.id });
        const bad = (m.parts ?? []).map(partProblem).find(Boolean);
        // Recorded for every message, so a run that held it says so (the per-statement report counts it as passed).
        ctx.expect(r["public-parts"], !bad, `message ${m.id} has ${bad}`, bad ? await ctx.http.req(walk) : undefined);
        const extra = ctx.contract.undeclared({ $ref: "#/components/schemas/Message" }, m, "");
        ctx.expect(r["message-fields"], extra.length === 0, `message ${m.id}: ${extra.map((u) => u.path).join(", ")} not declared by the contract`);
      }
    }

    const withMessages = chats[0];
    if (withMessages) {
      const bad = await ctx.http.req(`/v1/chats/${withMessages.id}/messages?limit=0&starting_after=nope`);
      for (const [rule, ok, message] of invalidParametersVerdicts(bad.status, bad.body, ["limit", "starting_after"], "invalid limit and cursor")) ctx.expect(rule, ok, message, bad);
      const unknown = await ctx.http.req(`/v1/chats/${withMessages.id}/messages?starting_after=${NEVER_ID}`);
      for (const [rule, ok, message] of noSuchMessageVerdicts(unknown.status, unknown.body, NEVER_ID, "an unknown message cursor")) ctx.expect(rule, ok, message, unknown);
      const otherChat = chats.find((c) => c.id !== withMessages.id);
      const foreignMessage = otherChat ? (await messagesOf(ctx.http, otherChat.id))[0] : undefined;
      if (foreignMessage) {
        const reply = await ctx.http.req(`/v1/chats/${withMessages.id}/messages?starting_after=${foreignMessage.id}`);
        for (const [rule, ok, message] of noSuchMessageVerdicts(reply.status, reply.body, foreignMessage.id, "another chat's message as cursor")) ctx.expect(rule, ok, message, reply);
      }
    }
    const unknownChat = await ctx.http.req(`/v1/chats/${NEVER_ID}/messages`);
    ctx.expect(r["unknown-chat"], unknownChat.status === 404, `messages of an unknown chat answered ${unknownChat.status}`, unknownChat);
    await ctx.part("planted internal, evaluation and release chats", () => plantedHidden(ctx));
  },
};
