/** Chats: only customer-visible chats exist here; hidden ones answer exactly like ids that never existed. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { chatOrder } from "../model/project.ts";
import { chatDetail, chatSummary } from "../views/chats.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

export function chatsHandlers(_deps: HandlerDeps): HandlerGroup<"listChats" | "getChat"> {
  return {
    listChats({ project, query }) {
      const page = listPage({
        sorted: project.chatList,
        order: chatOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => project.chats.get(id),
        noun: "chat",
      });
      return { status: 200, body: envelope(page, chatSummary) };
    },

    getChat({ project, path }) {
      const chat = project.chats.get(path.id);
      if (!chat) throw notFound(`No such chat: ${path.id}`);
      return { status: 200, body: chatDetail(chat, project.messagesByChat.get(chat.id)?.length ?? 0) };
    },
  };
}
