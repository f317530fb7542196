/**
 * The chats of every project and their messages: one job of the store, as studies and interviews are. Only what the
 * customer sees is kept: a chat that is not `visible`, a message of a hidden branch, and every message of a hidden chat
 * are dropped when planted, so they can never leak into a list or a count. Memory and SQLite keep them in the process
 * (stores/memory/chats.ts); several processes on one PostgreSQL keep them in its `chats` and `messages` tables only.
 */
import type { StoredChat, StoredMessage } from "../../../fixtures/types.ts";
import type { Query } from "../http/types.ts";
import type { Page } from "../model/sorted.ts";
import type { Project } from "../model/project.ts";

export interface Chats {
  /** A page of the project's chats, newest first (ties by id); the cursor must be one of them (else a 400). */
  list(project: Project, query: Query<"listChats">): Promise<Page<StoredChat>>;
  /** One of the project's chats and how many visible messages it has; undefined for an id it does not have. */
  get(project: Project, id: string): Promise<{ chat: StoredChat; messages: number } | undefined>;
  /** A page of a chat's messages, oldest first (ties by id); undefined when the project has no such chat. */
  messages(project: Project, chatId: string, query: Query<"listChatMessages">): Promise<Page<StoredMessage> | undefined>;
  /** Stores a chat planted through the simulation surface with its messages (what is hidden is dropped here). */
  plant(project: Project, chat: StoredChat, messages: StoredMessage[]): Promise<void>;
}
