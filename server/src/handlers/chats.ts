/** Chats: only customer-visible chats exist here; hidden ones answer exactly like ids that never existed. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { chatDetail, chatSummary } from "../views/chats.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope } from "./pagination.ts";

export function chatsHandlers({ chats }: HandlerDeps): HandlerGroup<"listChats" | "getChat"> {
  return {
    async listChats({ project, query }) {
      return { status: 200, body: envelope(await chats.list(project, query), chatSummary) };
    },

    async getChat({ project, path }) {
      const found = await chats.get(project, path.id);
      if (!found) throw notFound(`No such chat: ${path.id}`);
      return { status: 200, body: chatDetail(found.chat, found.messages) };
    },
  };
}
