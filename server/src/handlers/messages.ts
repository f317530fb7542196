/** A chat's visible messages, oldest first. The chat is checked (404) before the cursor (400). */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { messageOrder } from "../model/project.ts";
import { messageView } from "../views/messages.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

export function messagesHandlers(_deps: HandlerDeps): HandlerGroup<"listChatMessages"> {
  return {
    listChatMessages({ project, path, query }) {
      const messages = project.messagesByChat.get(path.id);
      if (!messages) throw notFound(`No such chat: ${path.id}`);
      const page = listPage({
        sorted: messages,
        order: messageOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => project.messages.get(id),
        filter: (m) => m.chat_id === path.id,
        noun: "message",
      });
      return { status: 200, body: envelope(page, messageView) };
    },
  };
}
