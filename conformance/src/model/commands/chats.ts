/**
 * Model commands on chats: planted in any visibility with visible, hidden-branch and internal-only messages (as the
 * capabilities allow), read, their messages listed and paged by cursor, and the chat list walked page by page while
 * a chat is planted between pages.
 */
import type { Capability } from "../../states/capabilities.ts";
import { errorMessage } from "../../http.ts";
import { r } from "../rules.ts";
import type { Model, ModelChat, World } from "../world.ts";
import { Command, judgeMessages } from "./base.ts";

export type MessageKind = "visible" | "hidden" | "internal";

/** The capability each kind of planted message needs beyond plant-chat. */
export const KIND_NEEDS: Record<MessageKind, Capability[]> = { visible: [], hidden: ["hidden-messages"], internal: ["recorded-parts"] };

export class PlantChat extends Command {
  readonly name = "plantChat";
  static override needs: Capability[] = ["plant-chat"];
  constructor(readonly visibility: "visible" | "internal" | "evaluation" | "release", readonly title: string | null, readonly source: string | null, readonly kinds: MessageKind[]) {
    super();
  }
  /** Public so a walk can plant a chat between its pages. */
  override async act(m: Model, w: World) {
    // A title carries the run's id, as every name the run gives; a null title stays null.
    const title = this.title === null ? null : w.ctx.states.name(this.title);
    const parts = (kind: MessageKind, n: number) => (kind === "internal" ? [{ type: "compaction" as const, summary: `compacted ${n}` }] : [{ type: "text" as const, text: `model message ${n}` }]);
    const messages = this.kinds.map((kind, n) => ({ role: n % 2 ? ("assistant" as const) : ("user" as const), parts: parts(kind, n), ...(kind === "hidden" ? { hidden: true } : {}) }));
    const planted = await w.ctx.states.plantChat({ title: title, source: this.source, visibility: this.visibility, messages });
    const ids = planted.message_ids;
    const chat: ModelChat = {
      id: planted.id, visible: this.visibility === "visible", title: title, source: this.source,
      messages: this.kinds.map((kind, n) => ({ id: ids[n], visible: kind === "visible", internalOnly: kind === "internal" })),
    };
    m.chats.push(chat);
    if (chat.visible) await judgeMessages(w, chat, 100);
    const listed = (await w.http.walk("/v1/chats", 100)).items.filter((c: any) => c.id === chat.id);
    // A visible chat missing from the list because its title or source is null breaks the nullable rule first.
    const nullable = chat.visible && (title === null || this.source === null);
    w.judge.expect(nullable && listed.length === 0 ? r["nullable-listed"] : r["chat-visibility"], listed.length === (chat.visible ? 1 : 0), `a planted ${this.visibility} chat${nullable ? ` with title ${JSON.stringify(title)} and source ${JSON.stringify(this.source)}` : ""} is listed ${listed.length} times, not ${chat.visible ? 1 : 0}`);
    if (chat.visible && listed[0]) {
      w.judge.expect(r["nullable-listed"], listed[0].title === title && listed[0].source === this.source, `the planted chat is listed with title ${JSON.stringify(listed[0].title)} and source ${JSON.stringify(listed[0].source)}, not ${JSON.stringify(title)} and ${JSON.stringify(this.source)}`);
    }
  }
  override toString = () => `plantChat(${this.visibility}, title ${JSON.stringify(this.title)}, source ${JSON.stringify(this.source)}, [${this.kinds.join(", ")}])`;
}

export class ReadChat extends Command {
  readonly name = "readChat";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.length > 0;
  protected async act(m: Model, w: World) {
    const chat = m.chats[this.pick % m.chats.length];
    const reply = await w.http.req(`/v1/chats/${chat.id}`);
    w.judge.conforms(reply, `GET /v1/chats/${chat.id}`);
    if (!chat.visible) {
      w.judge.expect(r["chat-visibility"], reply.status === 404, `GET /v1/chats/${chat.id} of a hidden chat answered ${reply.status}, not 404`, reply);
      const messages = await w.http.req(`/v1/chats/${chat.id}/messages`);
      w.judge.expect(r["chat-visibility"], messages.status === 404, `the messages of a hidden chat answered ${messages.status}, not 404`, messages);
      return;
    }
    w.judge.expect(r["chat-visibility"], reply.status === 200, `GET /v1/chats/${chat.id} of a visible chat answered ${reply.status}`, reply);
    const visible = chat.messages.filter((x) => x.visible).length;
    const onlyPinned = chat.messages.filter((x) => !x.visible && x.internalOnly).length;
    const count = reply.body?.message_count;
    // A message of internal parts only is our pin: counting it fails the contract rule, not the seed's.
    const seedOk = count === visible || (onlyPinned > 0 && count === visible + onlyPinned);
    w.judge.expect(r["message-visibility"], seedOk, `message_count is ${count}, but the chat has ${visible} visible messages (of ${chat.messages.length} planted: ${chat.messages.filter((x) => !x.visible && !x.internalOnly).length} hidden-branch, ${onlyPinned} of internal parts only)`, reply);
    if (seedOk && onlyPinned) w.judge.expect(r["internal-only"], count === visible, `message_count ${count} counts the ${onlyPinned} messages made of internal parts only`, reply);
  }
  override toString = () => `readChat(#${this.pick})`;
}



export class ListMessages extends Command {
  readonly name = "listMessages";
  constructor(readonly pick: number, readonly limit: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.some((c) => c.visible);
  protected async act(m: Model, w: World) {
    const visible = m.chats.filter((c) => c.visible);
    await judgeMessages(w, visible[this.pick % visible.length], this.limit);
  }
  override toString = () => `listMessages(#${this.pick}, limit ${this.limit})`;
}

export class MessageCursor extends Command {
  readonly name = "messageCursor";
  constructor(readonly pick: number, readonly message: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.some((c) => c.visible && c.messages.length > 0);
  protected async act(m: Model, w: World) {
    const chats = m.chats.filter((c) => c.visible && c.messages.length > 0);
    const chat = chats[this.pick % chats.length];
    const target = chat.messages[this.message % chat.messages.length];
    const reply = await w.http.req(`/v1/chats/${chat.id}/messages?limit=100&starting_after=${target.id}`);
    w.judge.conforms(reply, `GET /v1/chats/${chat.id}/messages?starting_after=`);
    if (target.visible) {
      const after = chat.messages.slice(chat.messages.indexOf(target) + 1).filter((x) => x.visible || x.internalOnly).map((x) => x.id);
      const got: string[] = reply.body?.data?.map((x: any) => x.id) ?? [];
      const ok = reply.status === 200 && got.every((id) => after.includes(id)) && after.filter((id) => chat.messages.find((x) => x.id === id)!.visible).every((id) => got.includes(id));
      w.judge.expect(r["message-cursor"], ok, `starting_after a visible message answered ${reply.status} with [${got.join(", ")}], not the visible messages after it`, reply);
      return;
    }
    const want = `No such message: ${target.id}`;
    const ok = reply.status === 400 && errorMessage(reply.body) === want;
    w.judge.expect(target.internalOnly ? r["internal-only"] : r["message-cursor"], ok, `starting_after a ${target.internalOnly ? "message made of internal parts only" : "hidden-branch message"} (not a visible message) answered ${reply.status} ${JSON.stringify(errorMessage(reply.body))}, not 400 ${JSON.stringify(want)}`, reply);
  }
  override toString = () => `messageCursor(#${this.pick}, message #${this.message})`;
}

/**
 * The chat list walked at a small limit while a chat is planted between the first and second pages: the seed's
 * pagination by created_at keeps the walk stable, so no chat is listed twice, none that existed before is skipped,
 * and the sequence's hidden chats never appear.
 */
export class WalkChats extends Command {
  readonly name = "walkChats";
  static override needs: Capability[] = ["plant-chat"];
  constructor(readonly limit: number) {
    super();
  }
  protected async act(m: Model, w: World) {
    const before = (await w.http.walk("/v1/chats", 100)).items.map((c: any) => c.id as string);
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const reply = await w.http.req(`/v1/chats?limit=${this.limit}${after ? `&starting_after=${after}` : ""}`);
      w.judge.conforms(reply, "GET /v1/chats");
      if (reply.status !== 200 || !Array.isArray(reply.body?.data)) {
        w.judge.expect(r["list-walk"], false, `page ${page + 1} of GET /v1/chats?limit=${this.limit} answered ${reply.status}`, reply);
        return;
      }
      seen.push(...reply.body.data.map((c: any) => c.id));
      if (page === 0) await new PlantChat("visible", "Walked chat", "web", ["visible"]).act(m, w);
      if (!reply.body.has_more || reply.body.data.length === 0) break;
      after = reply.body.data[reply.body.data.length - 1].id;
    }
    const twice = seen.find((id, k) => seen.indexOf(id) !== k);
    w.judge.expect(r["list-walk"], !twice, `GET /v1/chats walked at limit ${this.limit} while a chat was planted between pages listed ${twice} twice`);
    const missed = before.filter((id) => !seen.includes(id));
    w.judge.expect(r["list-walk"], missed.length === 0, `GET /v1/chats walked at limit ${this.limit} while a chat was planted between pages skipped ${missed.length} chat(s) listed before it began, e.g. ${missed[0]}`);
    const hidden = m.chats.filter((c) => !c.visible && seen.includes(c.id));
    w.judge.expect(r["chat-visibility"], hidden.length === 0, `GET /v1/chats walked at limit ${this.limit} listed the sequence's hidden chats ${hidden.map((c) => c.id).join(", ")}`);
  }
  override toString = () => `walkChats(limit ${this.limit})`;
}
