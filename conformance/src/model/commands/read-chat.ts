/** `readChat`: GET /v1/chats/:id (and messages): 404 for hidden chats, message_count of visible messages. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

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

export const readChat: CommandSpec = {
  name: "readChat",
  doc: "GET /v1/chats/:id (and messages): 404 for hidden chats, message_count of visible messages",
  statements: ["endpoints.get-chat", "chat.message-count", "errors.hidden-chat-404"],
  needs: [],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new ReadChat(n)),
};
