/** `messageCursor`: starting_after a planted message: continues after a visible one; 400 `No such message: <id>` for a hidden one. */
import fc from "fast-check";
import { errorMessage } from "../../http.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

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

export const messageCursor: CommandSpec = {
  name: "messageCursor",
  doc: "starting_after a planted message: continues after a visible one; 400 `No such message: <id>` for a hidden one",
  statements: ["errors.no-such-message", "endpoints.messages-unknown-cursor", "endpoints.starting-after"],
  needs: [],
  weight: 1,
  draw: () => fc.tuple(fc.nat(7), fc.nat(7)).map(([c, x]) => new MessageCursor(c, x)),
};
