/** `walkChats`: the chat list walked at a small limit while a chat is planted between pages: no chat twice, none skipped, hidden ones never. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";
import { PlantChat } from "./plant-chat.ts";

/**
 * The chat list walked at a small limit while a chat is planted between the first and second pages: the seed's
 * pagination by created_at keeps the walk stable, so no chat is listed twice, none that existed before is skipped,
 * and the sequence's hidden chats never appear.
 */
export class WalkChats extends Command {
  readonly name = "walkChats";
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

export const walkChats: CommandSpec = {
  name: "walkChats",
  doc: "the chat list walked at a small limit while a chat is planted between pages: no chat twice, none skipped, hidden ones never",
  statements: ["endpoints.starting-after", "endpoints.next-page", "list.has-more", "endpoints.chats-stable", "endpoints.list-chats", "chat.visible-only"],
  needs: ["plant-chat"],
  weight: 1,
  draw: () => fc.integer({ min: 2, max: 10 }).map((l) => new WalkChats(l)),
};
