/** Chats and messages kept in the process (memory and SQLite): each project's maps and sorted lists (model/project.ts). */
import type { StoredChat, StoredMessage } from "../../../../fixtures/types.ts";
import { listPage } from "../../handlers/pagination.ts";
import type { Query } from "../../http/types.ts";
import { chatOrder, messageOrder, type Project } from "../../model/project.ts";
import type { Chats } from "../chats.ts";
import type { ChangeLog } from "../backend.ts";

export class MemoryChats implements Chats {
  constructor(private readonly backend: ChangeLog) {}

  async list(project: Project, query: Query<"listChats">) {
    return listPage({
      sorted: project.chatList,
      order: chatOrder,
      limit: query.limit,
      startingAfter: query.starting_after,
      lookup: (id) => project.chats.get(id),
      noun: "chat",
    });
  }

  async get(project: Project, id: string) {
    const chat = project.chats.get(id);
    return chat && { chat, messages: project.messagesByChat.get(id)?.length ?? 0 };
  }

  async messages(project: Project, chatId: string, query: Query<"listChatMessages">) {
    const messages = project.messagesByChat.get(chatId);
    if (!messages) return undefined;
    return listPage({
      sorted: messages,
      order: messageOrder,
      limit: query.limit,
      startingAfter: query.starting_after,
      lookup: (id) => project.messages.get(id),
      filter: (m) => m.chat_id === chatId,
      noun: "message",
    });
  }

  async plant(project: Project, chat: StoredChat, messages: StoredMessage[]): Promise<void> {
    this.backend.append({ kind: "chat.planted", chat, messages });
    project.plantChat(chat, messages);
  }
}
