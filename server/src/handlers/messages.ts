/** A chat's visible messages, oldest first. The chat is checked (404) before the cursor (400). */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { messageView } from "../views/messages.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope } from "./pagination.ts";

export function messagesHandlers({ chats }: HandlerDeps): HandlerGroup<"listChatMessages"> {
  return {
    async listChatMessages({ project, path, query }) {
      const page = await chats.messages(project, path.id, query);
      if (!page) throw notFound(`No such chat: ${path.id}`);
      return { status: 200, body: envelope(page, messageView) };
    },
  };
}
