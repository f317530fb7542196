/**
 * Every class of a messages cursor, every run: `starting_after` set to a visible message of the chat continues after
 * it; set to a hidden message of the chat, to another chat's message, or to a UUID of nothing, it is 400 `No such
 * message: <id>` (Errors 5: "a UUID but not a visible message of the chat"); set to what is not a UUID, with a
 * limit out of range beside it, it is 400 `Invalid parameters` naming both (Errors 4), and so is a visible message's id
 * with a space before it.
 */
import { randomUUID } from "node:crypto";
import { invalidParametersVerdicts, messageErrorRules, noSuchMessageVerdicts } from "../judge/messages-errors.ts";
import type { Reply } from "../http.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const text = (t: string) => [{ type: "text" as const, text: t }];

function judge(env: CoverEnv, verdicts: ReturnType<typeof noSuchMessageVerdicts>, reply: Reply): void {
  for (const [rule, ok, message] of verdicts) env.expect(rule, ok, message, reply);
}

export const cursors: Unit = {
  name: "cursors",
  doc: "messages' starting_after in every class: a visible message of the chat (continues after it), a hidden one of it, another chat's message and a UUID of nothing (400 No such message), not a UUID beside a limit out of range (400 Invalid parameters naming both), a visible message's id with a space before it (400 Invalid parameters)",
  needs: ["plant-chat"],
  rules: [messageErrorRules["no-such-message"], messageErrorRules["invalid-parameters"], r["message-count"]],
  classes: (ctx) => ["cursor visible", ...(ctx.states.has("hidden-messages") ? ["cursor hidden"] : []), "cursor of another chat", "cursor of nothing", "cursor not a UUID", "cursor padded with a space"],
  async run(env) {
    const { ctx } = env;
    const hidden = ctx.states.has("hidden-messages");
    const msgs = [
      { role: "user" as const, parts: text("first") },
      ...(hidden ? [{ role: "assistant" as const, parts: text("on a hidden branch"), hidden: true }] : []),
      { role: "assistant" as const, parts: text("second") },
      { role: "user" as const, parts: text("third") },
    ];
    const [chat, other] = await Promise.all([
      ctx.states.plantChat({ title: "Cursors", messages: msgs }, env.project),
      ctx.states.plantChat({ title: "Cursors elsewhere", messages: [{ role: "user", parts: text("elsewhere") }] }, env.project),
    ]);
    const visible = chat.message_ids.filter((_, k) => !(msgs[k] as { hidden?: boolean }).hidden);
    const path = (q: string) => `/v1/chats/${chat.id}/messages?${q}`;

    const after = await env.req(path(`starting_after=${visible[0]}`));
    const got = (after.body?.data ?? []).map((m: any) => m.id);
    env.expect(r["message-count"], after.status === 200 && JSON.stringify(got) === JSON.stringify(visible.slice(1)) && after.body?.has_more === false, `starting_after the chat's first visible message answers ${after.status} with ${JSON.stringify(got)} (has_more ${after.body?.has_more}), not the two after it, oldest first, has_more false`, after);
    env.reach("cursor visible", r["message-count"].cites);

    const unknown: Array<[string, string]> = [["cursor of another chat", other.message_ids[0]], ["cursor of nothing", randomUUID()]];
    if (hidden) unknown.unshift(["cursor hidden", chat.message_ids[1]]);
    for (const [cls, id] of unknown) {
      const reply = await env.req(path(`starting_after=${id}`));
      judge(env, noSuchMessageVerdicts(reply.status, reply.body, id, `${cls}: starting_after=${id}`), reply);
      env.reach(cls, messageErrorRules["no-such-message"].cites);
    }

    const bad = await env.req(path(`limit=0&starting_after=${visible[0]}x`));
    judge(env, invalidParametersVerdicts(bad.status, bad.body, ["limit", "starting_after"], "limit=0 and a starting_after that is not a UUID"), bad);
    env.reach("cursor not a UUID", messageErrorRules["invalid-parameters"].cites);
    // A visible message's id with a space before it is not a UUID either: a server that trims what it reads answers
    // the page after that message instead.
    const padded = await env.req(path(`starting_after=%20${visible[0]}`));
    judge(env, invalidParametersVerdicts(padded.status, padded.body, ["starting_after"], `a starting_after of a visible message's id with a space before it (" ${visible[0]}")`), padded);
    env.reach("cursor padded with a space", messageErrorRules["invalid-parameters"].cites);
  },
};
