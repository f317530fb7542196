/**
 * The one place that opens the configured store: memory (the default), SQLite (`--data-dir`) or PostgreSQL
 * (`--database-url`, shared by several processes). Each store is a folder beside this file.
 */
import type { Journal } from "./journal.ts";
import { MemoryJournal } from "./memory/journal.ts";
import { PgJournal, type PgJournalOptions } from "./postgres/journal.ts";
import { SqliteJournal } from "./sqlite/journal.ts";

/** A store of one process, opened synchronously (createApp's default). */
export function openLocalStore(dataDir?: string): Journal {
  return dataDir ? new SqliteJournal(dataDir) : new MemoryJournal();
}

export interface StoreConfig {
  dataDir?: string;
  databaseUrl?: string;
  /** PostgreSQL only: the pool, the logger and what the first process writes (see PgJournalOptions). */
  postgres?: PgJournalOptions;
}

/**
 * The configured store. PostgreSQL is connected, migrated and read first; a database that cannot be used throws
 * StoreUnavailable with the reason (main.ts ends the start with it).
 */
export async function openStore(config: StoreConfig): Promise<Journal> {
  if (config.databaseUrl) return PgJournal.open(config.databaseUrl, config.postgres ?? { initialMeta: {} });
  return openLocalStore(config.dataDir);
}
