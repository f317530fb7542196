/**
 * Chats and messages when several processes share one PostgreSQL: rows of `chats` and `messages`, queried per request
 * and held by no process. A chat never changes once planted, so its count of visible messages is written with it.
 */
import type { StoredChat, StoredMessage } from "../../../../fixtures/types.ts";
import type { Query } from "../../http/types.ts";
import { isVisibleChat, isVisibleMessage, type Project } from "../../model/project.ts";
import type { Page } from "../../model/sorted.ts";
import type { Chats } from "../chats.ts";
import type { PgBackend } from "./backend.ts";
import { keysetPage } from "./keyset.ts";

/** The chats and messages of a dataset (or one planted chat) as rows, the hidden ones left out. */
export function chatRows(chats: readonly StoredChat[], messages: readonly StoredMessage[]): { chats: Array<StoredChat & { message_count: number }>; messages: StoredMessage[] } {
  const visible = new Map(chats.filter(isVisibleChat).map((c) => [c.id, { ...c, message_count: 0 }]));
  const kept = messages.filter((m) => isVisibleMessage(m) && visible.has(m.chat_id));
  for (const m of kept) visible.get(m.chat_id)!.message_count++;
  return { chats: [...visible.values()], messages: kept };
}

/** Writes chat and message rows (those already there are kept): a planted chat, or the fixtures'. */
export async function insertChats(backend: PgBackend, rows: ReturnType<typeof chatRows>, now = false): Promise<void> {
  await insertRows(
    backend,
    `INSERT INTO chats (project_id, id, doc, message_count)
     SELECT x->>'project_id', x->>'id', x - 'message_count', (x->>'message_count')::int FROM jsonb_array_elements($1::jsonb) AS x ON CONFLICT DO NOTHING`,
    rows.chats,
    now,
  );
  await insertRows(
    backend,
    "INSERT INTO messages (project_id, chat_id, id, doc) SELECT x->>'project_id', x->>'chat_id', x->>'id', x FROM jsonb_array_elements($1::jsonb) AS x ON CONFLICT DO NOTHING",
    rows.messages,
    now,
  );
}

/** Rows per statement when many are written at once (generated fixtures can be a million: one JSON text each batch). */
const BATCH = 2_000;

/**
 * Runs `insert` (its $1 a JSON array of records) over `rows`, a batch at a time: with the change's COMMIT (a planted
 * chat), or `now`, a statement each (the fixtures: a million generated rows would make one COMMIT of a gigabyte, and
 * the changes moved in after them update their rows).
 */
export async function insertRows(backend: PgBackend, insert: string, rows: readonly object[], now = false): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    const values = [JSON.stringify(rows.slice(i, i + BATCH))];
    if (now) await backend.query(insert, values);
    else await backend.atCommit(insert, values);
  }
}

export class PgChats implements Chats {
  constructor(private readonly backend: PgBackend) {}

  list(project: Project, query: Query<"listChats">): Promise<Page<StoredChat>> {
    return keysetPage(this.backend, { table: "chats", where: "project_id = $1", values: [project.id], newestFirst: true, noun: "chat" }, query.starting_after, query.limit);
  }

  async get(project: Project, id: string) {
    const { rows } = await this.backend.query<{ doc: StoredChat; message_count: number }>("SELECT doc, message_count FROM chats WHERE project_id = $1 AND id = $2", [project.id, id]);
    return rows[0] && { chat: rows[0].doc, messages: rows[0].message_count };
  }

  async messages(project: Project, chatId: string, query: Query<"listChatMessages">): Promise<Page<StoredMessage> | undefined> {
    // The chat is checked (404) before the cursor (400).
    const { rows: chat } = await this.backend.query("SELECT 1 FROM chats WHERE project_id = $1 AND id = $2", [project.id, chatId]);
    if (chat.length === 0) return undefined;
    const list = { table: "messages", where: "project_id = $1 AND chat_id = $2", values: [project.id, chatId], newestFirst: false, noun: "message" };
    return keysetPage<StoredMessage>(this.backend, list, query.starting_after, query.limit);
  }

  async plant(_project: Project, chat: StoredChat, messages: StoredMessage[]): Promise<void> {
    await insertChats(this.backend, chatRows([chat], messages));
  }
}
