/** `listMessages`: GET /v1/chats/:id/messages walked at limit 1, 2 or 100: the visible messages, oldest first. */
import fc from "fast-check";
import type { Model, World } from "../world.ts";
import { Command, judgeMessages, type CommandSpec } from "./base.ts";

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

export const listMessages: CommandSpec = {
  name: "listMessages",
  doc: "GET /v1/chats/:id/messages walked at limit 1, 2 or 100: the visible messages, oldest first",
  statements: ["endpoints.list-messages", "chat.message-count", "part.internal-hidden", "endpoints.order"],
  needs: [],
  weight: 1,
  draw: () => fc.tuple(fc.nat(7), fc.constantFrom(1, 2, 100)).map(([n, l]) => new ListMessages(n, l)),
};
